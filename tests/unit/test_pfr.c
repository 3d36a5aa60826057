/* Unit tests for pfr: recordings written and read back byte for byte, torn,
 * damaged, and the in-memory history. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "model.h"
#include "model_json.h"
#include "pfr.h"
#include "snapshot.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define MAX_SNAPS 64

/* The snapshots of the round-trip fixtures, as JSON lines and as models. */
static char *lines[MAX_SNAPS];
static size_t line_len[MAX_SNAPS];
static struct model models[MAX_SNAPS];
static int nr_snaps;

static void load(const char *name)
{
	char path[4096], *line = NULL, err[256];
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/roundtrip/%s", testutil_fixtures(), name);
	f = fopen(path, "r");
	assert_non_null(f);
	while ((n = getline(&line, &cap, f)) > 0 && nr_snaps < MAX_SNAPS) {
		assert_int_equal(
		    model_from_json(&models[nr_snaps], line, (size_t)n, err, sizeof(err)), 0);
		lines[nr_snaps] = strdup(line);
		line_len[nr_snaps] = (size_t)n;
		nr_snaps++;
	}
	free(line);
	fclose(f);
}

static int setup(void **state)
{
	load("system.jsonl");
	load("threads.jsonl");
	load("command.jsonl");
	/* the same snapshots again: deltas against a key frame of another run */
	for (int i = 0, n = nr_snaps; i < n && nr_snaps < MAX_SNAPS; i++) {
		char err[256];

		assert_int_equal(
		    model_from_json(&models[nr_snaps], lines[i], line_len[i], err, sizeof(err)), 0);
		lines[nr_snaps] = NULL;
		nr_snaps++;
	}
	/* one run's times, a second apart: compared by rendering from now on */
	for (int i = 0; i < nr_snaps; i++) {
		models[i].wall_ns = 1700000000000000000ull + 1000000000ull * (uint64_t)i;
		free(lines[i]);
		lines[i] = NULL;
	}
	return 0;
}

static int teardown(void **state)
{
	for (int i = 0; i < nr_snaps; i++) {
		model_fini(&models[i]);
		free(lines[i]);
	}
	return 0;
}

static char *json_of(const struct model *m, size_t *len)
{
	char *s = snapshot_render(m, SNAPSHOT_JSON, false, len);

	assert_non_null(s);
	return s;
}

/* Write every snapshot with key frames every key_every into a new temporary
 * file; its fd (read-write), and where each frame starts in *starts. */
static int write_recording(unsigned key_every, off_t *starts)
{
	char path[] = "/tmp/pfmtop-test-pfr-XXXXXX";
	struct pfr_writer w;
	int fd = mkstemp(path);
	off_t at = 0;

	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(pfr_writer_init(&w, key_every), 0);
	for (int i = 0; i < nr_snaps; i++) {
		size_t len;
		unsigned char *buf = pfr_encode(&w, &models[i], i == 0, &len);

		assert_non_null(buf);
		if (starts)
			starts[i] = at + (i == 0 ? PFR_MAGIC_LEN : 0);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		at += (off_t)len;
		free(buf);
	}
	assert_true(w.bytes < w.raw / 4); /* it compresses */
	pfr_writer_fini(&w);
	return fd;
}

/* Frame i of r renders as snapshot k did. */
static void check_frame(struct pfr_reader *r, size_t i, int k)
{
	struct model m;
	char err[256], *a, *b;
	size_t la, lb;

	assert_int_equal(pfr_read(r, i, &m, err, sizeof(err)), 0);
	a = json_of(&m, &la);
	b = json_of(&models[k], &lb);
	assert_int_equal(la, lb);
	assert_memory_equal(a, b, la);
	if (lines[k]) {
		assert_int_equal(la, line_len[k]);
		assert_memory_equal(a, lines[k], la);
	}
	free(a);
	free(b);
	model_fini(&m);
}

static void test_round_trip(void **state)
{
	static const unsigned every[] = {1, 3, 100};

	for (size_t e = 0; e < sizeof(every) / sizeof(every[0]); e++) {
		struct pfr_reader r;
		char err[256];
		int fd = write_recording(every[e], NULL);

		assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
		assert_int_equal(r.nr, (size_t)nr_snaps);
		assert_int_equal(r.bad_bytes, 0);
		assert_int_equal(r.torn, 0);
		/* in order, backwards and by jumps: each frame alone */
		for (int i = 0; i < nr_snaps; i++)
			check_frame(&r, (size_t)i, i);
		for (int i = nr_snaps - 1; i >= 0; i -= 3)
			check_frame(&r, (size_t)i, i);
		assert_int_equal(pfr_find(&r, models[2].wall_ns), 2);
		assert_int_equal(pfr_find(&r, 0), 0);
		assert_int_equal(pfr_find(&r, UINT64_MAX), (size_t)nr_snaps - 1);
		pfr_close(&r);
		close(fd);
	}
}

/* Cut at every byte of the last frame: every frame before it still reads. */
static void test_torn_tail(void **state)
{
	off_t starts[MAX_SNAPS], end;
	struct pfr_reader r;
	char err[256];
	int fd = write_recording(5, starts);
	unsigned char *all;

	end = lseek(fd, 0, SEEK_END);
	all = malloc((size_t)end);
	assert_int_equal(pread(fd, all, (size_t)end, 0), end);
	for (off_t cut = starts[nr_snaps - 1]; cut < end; cut++) {
		assert_int_equal(pwrite(fd, all, (size_t)end, 0), end);
		assert_int_equal(ftruncate(fd, cut), 0);
		assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
		assert_int_equal(r.nr, (size_t)nr_snaps - 1);
		assert_int_equal(r.torn, (uint64_t)(cut - starts[nr_snaps - 1]));
		if (cut == starts[nr_snaps - 1] || cut % 97 == 0)
			for (int i = 0; i < nr_snaps - 1; i++)
				check_frame(&r, (size_t)i, i);
		pfr_close(&r);
	}
	free(all);
	close(fd);
}

/* A following reader: frames appended after the open are found by
 * pfr_update(), a frame half written is waited for. */
static void test_follow(void **state)
{
	off_t starts[MAX_SNAPS], end;
	struct pfr_reader r;
	char err[256];
	int fd = write_recording(4, starts);
	unsigned char *all;

	end = lseek(fd, 0, SEEK_END);
	all = malloc((size_t)end);
	assert_int_equal(pread(fd, all, (size_t)end, 0), end);
	assert_int_equal(ftruncate(fd, starts[3] + 10), 0);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, 3);
	assert_int_equal(
	    pwrite(fd, all + starts[3] + 10, (size_t)(end - starts[3] - 10), starts[3] + 10),
	    end - starts[3] - 10);
	assert_int_equal(pfr_update(&r), nr_snaps - 3);
	for (int i = 0; i < nr_snaps; i++)
		check_frame(&r, (size_t)i, i);
	pfr_close(&r);
	free(all);
	close(fd);
}

/* A damaged byte in a frame costs that frame and the deltas after it up to
 * the next key frame; the frames from there are found again. */
static void test_damage(void **state)
{
	off_t starts[MAX_SNAPS];
	struct pfr_reader r;
	char err[256];
	unsigned char c;
	int fd = write_recording(4, starts); /* keys at 0, 4, 8, ... */

	/* a delta frame's payload */
	assert_int_equal(pread(fd, &c, 1, starts[2] + PFR_HEADER_LEN + 5), 1);
	c ^= 0x40;
	assert_int_equal(pwrite(fd, &c, 1, starts[2] + PFR_HEADER_LEN + 5), 1);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, (size_t)nr_snaps - 2); /* 2 and 3, which needs it */
	assert_true(r.bad_bytes > 0);
	check_frame(&r, 1, 1);
	check_frame(&r, 2, 4);
	check_frame(&r, 3, 5);
	check_frame(&r, 0, 0);
	pfr_close(&r);
	/* the key frame 4's header too: 2..7 are lost, 8 on read */
	assert_int_equal(pwrite(fd, "X", 1, starts[4]), 1);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, (size_t)nr_snaps - 6);
	check_frame(&r, 1, 1);
	check_frame(&r, 2, 8);
	check_frame(&r, r.nr - 1, nr_snaps - 1);
	pfr_close(&r);
	close(fd);
}

/* Write snapshots from..from+n-1 as a new recording at the end of fd. */
static void write_snaps(int fd, int from, int n, unsigned key_every)
{
	struct pfr_writer w;

	assert_int_equal(pfr_writer_init(&w, key_every), 0);
	for (int i = from; i < from + n; i++) {
		size_t len;
		unsigned char *buf = pfr_encode(&w, &models[i], i == from, &len);

		assert_non_null(buf);
		assert_int_equal(write(fd, buf, len), (ssize_t)len);
		free(buf);
	}
	pfr_writer_fini(&w);
}

/* A recorder started again on the file (--force: emptied, written anew)
 * while it is read: the index is made again, never old entries over new
 * bytes; shorter than what was indexed, or longer with another first frame. */
static void test_rewritten(void **state)
{
	struct pfr_reader r;
	char err[256];
	int fd = write_recording(4, NULL), shorter = 10;

	assert_true(nr_snaps > shorter + 6);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	check_frame(&r, 2, 2);
	assert_int_equal(pfr_update(&r), 0);
	assert_int_equal(r.rebuilds, 0);
	/* shorter: snapshots 5..14 */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	write_snaps(fd, 5, shorter, 3);
	assert_int_equal(pfr_update(&r), shorter);
	assert_int_equal(r.rebuilds, 1);
	assert_int_equal(r.nr, (size_t)shorter);
	assert_int_equal(r.bad_bytes, 0);
	for (int i = 0; i < shorter; i++)
		check_frame(&r, (size_t)i, 5 + i);
	/* longer than that, from another first frame: snapshots 1..N-1 */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	write_snaps(fd, 1, nr_snaps - 1, 4);
	assert_int_equal(pfr_update(&r), nr_snaps - 1);
	assert_int_equal(r.rebuilds, 2);
	assert_int_equal(r.nr, (size_t)nr_snaps - 1);
	for (int i = nr_snaps - 2; i >= 0; i -= 2)
		check_frame(&r, (size_t)i, 1 + i);
	/* emptied: nothing indexed, and read once the recording is back */
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pfr_update(&r), 0);
	assert_int_equal(r.nr, 0);
	assert_int_equal(r.rebuilds, 3);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	write_snaps(fd, 0, 3, 4);
	assert_int_equal(pfr_update(&r), 3);
	assert_int_equal(r.rebuilds, 3); /* the same rebuild */
	check_frame(&r, 2, 2);
	pfr_close(&r);
	close(fd);
}

/* A frame changed in place after it was indexed fails its CRC when read
 * back: never decoded, -ESTALE; the next update indexes the file again. */
static void test_crc_on_read(void **state)
{
	off_t starts[MAX_SNAPS];
	struct pfr_reader r;
	struct model m;
	char err[256];
	unsigned char c;
	int fd = write_recording(4, starts); /* keys at 0, 4, 8, ... */

	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, (size_t)nr_snaps);
	check_frame(&r, 1, 1);
	assert_int_equal(pread(fd, &c, 1, starts[2] + PFR_HEADER_LEN + 5), 1);
	c ^= 0x40;
	assert_int_equal(pwrite(fd, &c, 1, starts[2] + PFR_HEADER_LEN + 5), 1);
	/* frame 2 itself, and frame 3 that is decoded through it */
	assert_int_equal(pfr_read(&r, 2, &m, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "the recording changed since it was read"));
	assert_true(r.stale);
	assert_int_equal(pfr_read(&r, 3, &m, err, sizeof(err)), -ESTALE);
	check_frame(&r, 1, 1); /* what did not change still reads */
	/* a frame's header changed (its wall time): the same */
	check_frame(&r, 6, 6);
	assert_int_equal(pread(fd, &c, 1, starts[5] + 16), 1);
	c ^= 1;
	assert_int_equal(pwrite(fd, &c, 1, starts[5] + 16), 1);
	assert_int_equal(pfr_read(&r, 5, &m, err, sizeof(err)), -ESTALE);
	/* indexed again: 2 and 3 (which needs it), 5..7 (up to key 8) left out */
	assert_true(pfr_update(&r) > 0);
	assert_int_equal(r.rebuilds, 1);
	assert_false(r.stale);
	assert_int_equal(r.nr, (size_t)nr_snaps - 5);
	check_frame(&r, 1, 1);
	check_frame(&r, 2, 4);
	check_frame(&r, 3, 8);
	pfr_close(&r);
	close(fd);
}

/* A frame whose snapshot is over PFR_MAX_SNAPSHOT says so (not "no size"). */
static void test_frame_limit(void **state)
{
	char path[] = "/tmp/pfmtop-test-pfr-XXXXXX", err[256];
	/* a zstd frame header: single segment, an 8-byte content size, then an
	 * empty last raw block */
	unsigned char frame[PFR_HEADER_LEN + 16] = "PFRFK", *p = frame + PFR_HEADER_LEN;
	const uint64_t size = PFR_MAX_SNAPSHOT + 1ull;
	struct pfr_reader r;
	struct model m;
	uLong crc = crc32(0L, Z_NULL, 0);
	int fd = mkstemp(path);

	unlink(path);
	memcpy(p, "\x28\xb5\x2f\xfd\xe0", 5);
	for (int i = 0; i < 8; i++)
		p[5 + i] = (unsigned char)(size >> (8 * i));
	memcpy(p + 13, "\x01\x00\x00", 3);
	frame[8] = 16; /* the payload's length */
	frame[16] = 1; /* wall time */
	crc = crc32_z(crc, frame, 12);
	crc = crc32_z(crc, frame + 16, 12);
	crc = crc32_z(crc, p, 16);
	for (int i = 0; i < 4; i++)
		frame[12 + i] = (unsigned char)(crc >> (8 * i));
	assert_int_equal(write(fd, PFR_MAGIC, PFR_MAGIC_LEN), PFR_MAGIC_LEN);
	assert_int_equal(write(fd, frame, sizeof(frame)), (ssize_t)sizeof(frame));
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, 1);
	assert_int_equal(pfr_read(&r, 0, &m, err, sizeof(err)), -EIO);
	if (!strstr(err, "over the 64 MiB frame limit")) {
		print_error("got '%s'\n", err);
		fail();
	}
	pfr_close(&r);
	close(fd);
}

static void test_not_a_recording(void **state)
{
	char path[] = "/tmp/pfmtop-test-pfr-XXXXXX", err[256];
	struct pfr_reader r;
	int fd = mkstemp(path);

	unlink(path);
	assert_int_equal(pfr_is_recording(fd), 0);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a pfmtop recording"));
	assert_int_equal(write(fd, "{\"pfmtop\":1}\n", 13), 13);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), -EINVAL);
	/* the magic alone: a recording with no frame yet */
	assert_int_equal(pwrite(fd, PFR_MAGIC, PFR_MAGIC_LEN, 0), PFR_MAGIC_LEN);
	assert_int_equal(ftruncate(fd, PFR_MAGIC_LEN), 0);
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, 0);
	{
		struct model m;

		assert_int_equal(pfr_read(&r, 0, &m, err, sizeof(err)), -EINVAL);
	}
	pfr_close(&r);
	close(fd);
}

/* Garbage between frames and lying lengths never crash the reader. */
static void test_garbage(void **state)
{
	char path[] = "/tmp/pfmtop-test-pfr-XXXXXX", err[256];
	unsigned char junk[4096];
	struct pfr_reader r;
	int fd = mkstemp(path);

	unlink(path);
	srand(7);
	assert_int_equal(write(fd, PFR_MAGIC, PFR_MAGIC_LEN), PFR_MAGIC_LEN);
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < sizeof(junk); i++)
			junk[i] = (unsigned char)rand();
		/* headers that look right, with random lengths and payloads */
		for (size_t at = (size_t)(rand() % 64); at + PFR_HEADER_LEN < sizeof(junk);
		     at += 200 + (size_t)(rand() % 300)) {
			memcpy(junk + at, "PFRF", 4);
			junk[at + 4] = rand() % 2 ? 'K' : 'D';
			junk[at + 5] = junk[at + 6] = junk[at + 7] = 0;
		}
		assert_int_equal(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	}
	assert_int_equal(pfr_open(&r, fd, err, sizeof(err)), 0);
	assert_int_equal(r.nr, 0);
	assert_true(r.bad_bytes + r.torn > 0);
	pfr_close(&r);
	close(fd);
}

static void test_memory(void **state)
{
	struct pfr_writer w;
	struct pfr_reader r;
	size_t before;

	assert_int_equal(pfr_writer_init(&w, 3), 0);
	assert_int_equal(pfr_open_memory(&r), 0);
	for (int i = 0; i < nr_snaps; i++) {
		size_t len;
		unsigned char *buf = pfr_encode(&w, &models[i], false, &len);

		assert_non_null(buf);
		assert_int_equal(pfr_append(&r, buf, len), 0);
	}
	assert_int_equal(r.nr, (size_t)nr_snaps);
	check_frame(&r, 4, 4);
	/* forgetting keeps whole key runs: frames 0-2 go, 3 (a key) stays */
	pfr_forget_before(&r, models[4].wall_ns);
	before = r.nr;
	assert_int_equal(before, (size_t)nr_snaps - 3);
	for (size_t i = 0; i < r.nr; i++)
		check_frame(&r, i, (int)i + 3);
	assert_int_equal(pfr_append(&r, (unsigned char *)strdup("short"), 5), -EINVAL);
	pfr_close(&r);
	pfr_writer_fini(&w);
}

/* A frame holds every task row, whatever -N (top_n) prints. */
static void test_every_row(void **state)
{
	struct pfr_writer w;
	struct pfr_reader r;
	struct model m = models[0], back;
	char err[256];
	size_t len;

	assert_true(m.nr_tasks > 2);
	m.top_n = 2;
	assert_int_equal(pfr_writer_init(&w, 0), 0);
	assert_int_equal(pfr_open_memory(&r), 0);
	unsigned char *buf = pfr_encode(&w, &m, false, &len);
	assert_non_null(buf);
	assert_int_equal(pfr_append(&r, buf, len), 0);
	assert_int_equal(pfr_read(&r, 0, &back, err, sizeof(err)), 0);
	assert_int_equal(back.nr_tasks, m.nr_tasks);
	for (int i = 0; i < m.nr_tasks; i++)
		assert_int_equal(back.tasks[i].pid, m.tasks[i].pid);
	model_fini(&back);
	pfr_close(&r);
	pfr_writer_fini(&w);
}

/* Hotspot rows cut for printing go to "other": the rows still add up. */
static void test_cut_hot(void **state)
{
	struct model m = models[0];
	struct model_sampling *s = &m.sampling;
	uint64_t weight = 0, samples = 0;

	assert_true(m.nr_hot > 3);
	for (int i = 0; i < m.nr_hot; i++) {
		m.hot[i].weight = m.hot[i].samples * 250000;
		weight += m.hot[i].weight;
		samples += m.hot[i].samples;
	}
	s->total_samples = samples + 7; /* 7 below the rows kept */
	s->total_weight = weight + 7 * 250000;
	const struct model c = model_cut_hot(&m, 3);
	uint64_t kept = 0;
	for (int i = 0; i < c.nr_hot; i++)
		kept += c.hot[i].samples;
	assert_int_equal(c.nr_hot, 3);
	assert_int_equal(kept + c.sampling.hot_other.samples, s->total_samples);
	assert_int_equal(c.sampling.hot_other.rows, m.hot_total - 3);
	assert_true(c.sampling.hot_other.share > 0);
	assert_int_equal(m.nr_hot, models[0].nr_hot); /* the model itself is left alone */
	assert_int_equal(model_cut_hot(&m, -1).nr_hot, m.nr_hot);
	assert_int_equal(model_cut_hot(&m, m.nr_hot + 5).nr_hot, m.nr_hot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),      cmocka_unit_test(test_torn_tail),
	    cmocka_unit_test(test_follow),          cmocka_unit_test(test_damage),
	    cmocka_unit_test(test_not_a_recording), cmocka_unit_test(test_garbage),
	    cmocka_unit_test(test_memory),          cmocka_unit_test(test_rewritten),
	    cmocka_unit_test(test_crc_on_read),     cmocka_unit_test(test_frame_limit),
	    cmocka_unit_test(test_every_row),       cmocka_unit_test(test_cut_hot),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
