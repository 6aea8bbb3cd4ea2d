/* test_json.c - formats/json: the values RFC 8259 defines (escapes,
 * surrogate pairs, numbers), protobuf's JSON spellings of int64 and float,
 * and one malformed or hostile text per check with its message (the
 * expected values are the RFC's, worked by hand). */
#include "check.h"
#include "json/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_doc *parse(const char *s, char *err)
{
	return json_parse(s, strlen(s), NULL, err, 256);
}

/* The text fails with a message containing want. */
static int bad(const char *s, const char *want)
{
	char err[256];
	json_doc *d = parse(s, err);
	json_free(d);
	if (d || !strstr(err, want)) {
		printf("# '%s': got '%s', want '%s'\n", s, d ? "(parsed)" : err, want);
		return 0;
	}
	return 1;
}

int main(void)
{
	char err[256];
	json_doc *d = parse(" {\"a\": [1, -2.5e3, true, false, null], \"s\": \"x\\u00e9\\ud83d\\ude00\\n\\\"\", "
			    "\"i\": \"-9223372036854775808\", \"e\": {}, \"l\": []}\n", err);
	CHECK_MSG(d, "%s", err);
	const json_value *r = json_root(d), *a = json_get(r, "a"), *s = json_get(r, "s");
	CHECK(r->type == JSON_OBJECT && r->len == 5);
	CHECK(a && a->type == JSON_ARRAY && a->len == 5);
	CHECK(a->items[0].type == JSON_NUMBER && a->items[0].num == 1);
	CHECK(a->items[1].num == -2500 && !strcmp(a->items[1].text, "-2.5e3"));
	CHECK(a->items[2].type == JSON_BOOL && a->items[2].b && !a->items[3].b && a->items[4].type == JSON_NULL);
	/* é is C3 A9, U+1F600 is F0 9F 98 80 */
	CHECK(s && s->len == 9 && !memcmp(s->text, "x\xc3\xa9\xf0\x9f\x98\x80\n\"", 9));
	int64_t i;
	CHECK(json_int64(json_get(r, "i"), &i) == 0 && i == INT64_MIN);
	CHECK(json_int64(&a->items[0], &i) == 0 && i == 1);
	CHECK(json_int64(&a->items[1], &i) == -1);	/* not an integer literal */
	CHECK(json_get(r, "e")->type == JSON_OBJECT && json_get(r, "e")->len == 0);
	CHECK(json_get(r, "l")->len == 0 && !json_get(r, "nosuch") && !json_get(a, "a"));
	json_free(d);

	d = parse("[\"9223372036854775807\", \"9223372036854775808\", \"NaN\", \"-Infinity\", \"1.5\", \"1x\"]", err);
	r = json_root(d);
	double f;
	CHECK(json_int64(&r->items[0], &i) == 0 && i == INT64_MAX);
	CHECK(json_int64(&r->items[1], &i) == -1);	/* overflow */
	CHECK(json_double(&r->items[2], &f) == 0 && isnan(f));
	CHECK(json_double(&r->items[3], &f) == 0 && f == -INFINITY);
	CHECK(json_double(&r->items[4], &f) == 0 && f == 1.5);
	CHECK(json_double(&r->items[5], &f) == -1);
	json_free(d);

	CHECK(bad("", "line 1: unexpected end of the text"));
	CHECK(bad("{\"a\": 1", "unexpected end of the text (truncated?)"));
	CHECK(bad("{\"a\": \"xy", "unexpected end of the text in a string"));
	CHECK(bad("[1,]", "line 1: unexpected ']'"));
	CHECK(bad("{\"a\" 1}", "expected ':' after key \"a\""));
	CHECK(bad("{\"a\": 1,\n\"a\": 2}", "key \"a\" appears twice"));
	CHECK(bad("[1] 2", "unexpected '2' after the value"));
	CHECK(bad("[01]", "expected ',' or ']'"));
	CHECK(bad("[1.]", "digits must follow '.'"));
	CHECK(bad("[1e]", "digits must follow the exponent"));
	CHECK(bad("[-]", "bad number"));
	CHECK(bad("[tru]", "unexpected 't'"));
	CHECK(bad("[NaN]", "unexpected 'N'"));
	CHECK(bad("[\"a\tb\"]", "control character 0x09"));
	CHECK(bad("[\"\\x\"]", "bad escape '\\x'"));
	CHECK(bad("[\"\\u12G4\"]", "bad \\u escape"));
	CHECK(bad("[\"\\ud800\"]", "unpaired surrogate \\ud800"));
	CHECK(bad("[\"\\udc00\"]", "unpaired surrogate \\udc00"));
	CHECK(bad("[\"\xc3\"]", "invalid UTF-8"));
	CHECK(bad("[\"\xc0\xaf\"]", "invalid UTF-8"));	/* overlong '/' */
	CHECK(bad("[\"\xed\xa0\x80\"]", "invalid UTF-8"));	/* an encoded surrogate */
	CHECK(bad("{\"a\\u0000b\": 1}", "key with a NUL character"));
	CHECK(bad("\n\n[1 2]", "line 3: expected ',' or ']', found '2'"));

	/* depth and size limits */
	char deep[200];
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = 0;
	CHECK(bad(deep, "nested deeper than 64 levels"));
	d = json_parse("[[[1]]]", 7, &(json_limits){.max_depth = 2}, err, sizeof err);
	CHECK(!d && strstr(err, "nested deeper than 2 levels"));
	d = json_parse("[[1]]", 5, &(json_limits){.max_depth = 2}, err, sizeof err);
	CHECK(d != NULL);
	json_free(d);
	d = json_parse("[1, 2]", 6, &(json_limits){.max_size = 5}, err, sizeof err);
	CHECK(!d && strstr(err, "more than the limit of 5"));
	/* a byte order mark is skipped; a NUL inside the text is an error */
	d = json_parse("\xef\xbb\xbf{}", 5, NULL, err, sizeof err);
	CHECK(d && json_root(d)->type == JSON_OBJECT);
	json_free(d);
	d = json_parse("[1]\0", 4, NULL, err, sizeof err);
	CHECK(!d && strstr(err, "byte 0x00 after the value"));
	/* many members: duplicates found by sorting, not pairwise */
	size_t n = 20000;
	char *big = malloc(n * 16 + 16), *p = big;
	p += sprintf(p, "{");
	for (size_t k = 0; k < n; k++)
		p += sprintf(p, "%s\"k%zu\":%zu", k ? "," : "", k, k);
	sprintf(p, "}");
	d = parse(big, err);
	CHECK(d && json_root(d)->len == n && json_get(json_root(d), "k19999")->num == 19999);
	json_free(d);
	free(big);
	return check_done();
}
