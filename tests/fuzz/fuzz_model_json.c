/*
 * libFuzzer harness: any bytes as a JSON snapshot (src/model_json.c). It
 * must refuse or read them without a crash or a leak; what it reads must
 * render as JSON, and that rendering must read back and render the same.
 */
#include "model.h"
#include "model_json.h"
#include "snapshot.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *render(const struct model *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	snapshot_write(f, m, SNAPSHOT_JSON);
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct model m, m2;
	char err[256];
	size_t len, len2;

	if (model_from_json(&m, (const char *)data, size, err, sizeof(err)))
		return 0;
	char *once = render(&m, &len);
	model_fini(&m);
	if (model_from_json(&m2, once, len, err, sizeof(err))) {
		fprintf(stderr, "its own rendering is refused: %s\n%s", err, once);
		abort();
	}
	char *twice = render(&m2, &len2);
	model_fini(&m2);
	if (len != len2 || memcmp(once, twice, len))
		abort();
	free(once);
	free(twice);
	return 0;
}
