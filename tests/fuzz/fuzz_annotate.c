/* fuzz_annotate: libFuzzer harness for annotate_load() on hostile ELF files and kcore images. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "annotate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * The input is a 17-byte header (a mode byte: bit 0 reads the file as
 * kcore, bit 1 leaves the source lines out; then the function's start and
 * size, 8 bytes each, little-endian) and the file: an ELF image for
 * annotate_load() to read, disassemble and take DWARF lines from. Then
 * samples over the function are counted and the text written. Nothing may
 * crash, and a load that fails must say why.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	struct annotate_func f = {0};
	struct annotate a;
	char path[64];
	uint64_t start = 0, len = 0;

	if (size < 17)
		return 0;
	if (fd < 0)
		fd = memfd_create("fuzz_annotate", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) ||
	    pwrite(fd, data + 17, size - 17, 0) != (ssize_t)(size - 17))
		return 0;
	for (int i = 0; i < 8; i++) {
		start |= (uint64_t)data[1 + i] << (8 * i);
		len |= (uint64_t)data[9 + i] << (8 * i);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	f.start = start;
	f.size = len % (2 * ANNOTATE_MAX_BYTES);
	f.bias = 0x1000;
	f.no_source = data[0] & 2;
	if (data[0] & 1) {
		f.kernel = true;
		f.kcore = path;
	} else {
		f.file = path;
	}
	if (annotate_load(&a, &f) == 0) {
		struct annotate_sample s[3] = {
		    {start + 0x1000, 3, 3}, {start + 0x1001, 1, 1}, {start + 0x1000 + len / 2, 2, 2}};
		FILE *out = fopen("/dev/null", "w");

		annotate_count(&a, s, 3);
		if (a.hottest >= a.nr || a.nr_insn > a.nr)
			__builtin_trap();
		for (int i = 0; i < a.nr; i++)
			if (a.lines[i].target >= a.nr || memchr(a.lines[i].text, 0, ANNOTATE_TEXT) == NULL)
				__builtin_trap();
		if (out) {
			annotate_print(out, &a);
			fclose(out);
		}
	} else if (!a.why[0]) {
		__builtin_trap();
	}
	annotate_free(&a);
	return 0;
}
