/* Unit tests for untrusted: outside text made safe for terminals, text files and JSON. */
/* cmocka.h needs these first */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "untrusted.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void text_is(const char *in, const char *want)
{
	char out[256];

	untrusted_text(out, sizeof(out), in);
	if (strcmp(out, want))
		print_error("'%s' -> '%s', want '%s'\n", in, out, want);
	assert_string_equal(out, want);
}

static void test_text(void **state)
{
	text_is("make -j", "make -j");
	text_is("z\xc3\xbcrich-\xce\xbb", "z\xc3\xbcrich-\xce\xbb"); /* valid UTF-8 stays */
	text_is("\x1b]2;PWNED\x07", "^[]2;PWNED^G");                 /* OSC */
	text_is("\r      1 root", "^M      1 root");
	text_is("a\nb\tc\bd", "a^Jb^Ic^Hd");
	text_is("\x7f", "^?");
	text_is("\xff\xfe", "\\xff\\xfe"); /* not UTF-8 */
	text_is("\x9b"
	        "31m",
	        "\\x9b31m"); /* C1 CSI, a raw byte */
	text_is("\xc2\x9b"
	        "31m",
	        "\\x9b31m");                                      /* C1 CSI, as UTF-8 */
	text_is("\xc0\xaf", "\\xc0\\xaf");                        /* overlong */
	text_is("\xed\xa0\x80", "\\xed\\xa0\\x80");               /* a surrogate */
	text_is("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");      /* past U+10FFFF */
	text_is("\xe2\x82", "\\xe2\\x82");                        /* cut short */
	text_is("\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!");        /* U+1F600 */
	text_is("evil\xe2\x80\xaegnp.exe", "evil\\u202egnp.exe"); /* U+202E RLO */
	text_is("\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\x8f", "\\u2066x\\u2069\\u200f");
	text_is("\xe2\x80\x8d", "\xe2\x80\x8d"); /* U+200D ZWJ: not bidi, kept */
}

/* Cut where it does not fit: never half an escape or half a character. */
static void test_text_cut(void **state)
{
	char out[5];

	assert_string_equal(untrusted_text(out, sizeof(out),
	                                   "ab\x1b"
	                                   "cd"),
	                    "ab^[");
	assert_string_equal(untrusted_text(out, sizeof(out), "abc\x1b"), "abc");
	assert_string_equal(untrusted_text(out, sizeof(out), "a\xff"), "a");
	assert_string_equal(untrusted_text(out, sizeof(out),
	                                   "ab\xce\xbb"
	                                   "c"),
	                    "ab\xce\xbb");
	assert_string_equal(untrusted_text(out, sizeof(out), "abc\xce\xbb"), "abc");
	assert_string_equal(untrusted_text(out, 1, "abc"), "");
}

static void test_width(void **state)
{
	assert_int_equal(untrusted_width("z\xc3\xbcrich-\xce\xbb"), 8);
	assert_int_equal(untrusted_width("^[]2"), 4);
	assert_int_equal(untrusted_width(""), 0);
}

static void test_fputs(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	untrusted_fputs(f, "one\ntwo\x1b", true);
	untrusted_fputs(f, "|three\nfour", false);
	fclose(f);
	assert_string_equal(buf, "one\ntwo^[|three^Jfour");
	free(buf);
}

static char *json_of(const char *s, bool *replaced)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*replaced = untrusted_json(f, s);
	fclose(f);
	return buf;
}

static void json_is(const char *in, const char *want, bool want_replaced)
{
	bool replaced;
	char *got = json_of(in, &replaced);

	if (strcmp(got, want))
		print_error("json '%s' -> %s, want %s\n", in, got, want);
	assert_string_equal(got, want);
	assert_int_equal(replaced, want_replaced);
	free(got);
}

static void test_json(void **state)
{
	json_is("make", "\"make\"", false);
	json_is("a\"b\\c", "\"a\\\"b\\\\c\"", false);
	json_is("\x1b]2;x\x07", "\"\\u001b]2;x\\u0007\"", false);
	json_is("a\nb\tc\x7f", "\"a\\nb\\tc\\u007f\"", false);
	json_is("\xc2\x85", "\"\\u0085\"", false); /* C1 NEL, valid UTF-8 */
	json_is("z\xc3\xbcrich", "\"z\xc3\xbcrich\"", false);
	json_is("\xff\xfe", "\"\\ufffd\\ufffd\"", true);
	json_is("ok\xed\xa0\x80", "\"ok\\ufffd\\ufffd\\ufffd\"", true);
}

static void test_json_field(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	untrusted_json_field(f, "comm", "\xff\xfe");
	fputc(' ', f);
	untrusted_json_field(f, "comm", "plain");
	fclose(f);
	assert_string_equal(buf,
	                    "\"comm\":\"\\ufffd\\ufffd\",\"comm_raw\":\"fffe\" \"comm\":\"plain\"");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_text),  cmocka_unit_test(test_text_cut),
	    cmocka_unit_test(test_width), cmocka_unit_test(test_fputs),
	    cmocka_unit_test(test_json),  cmocka_unit_test(test_json_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
