/* fuzz_json.c - the strict JSON reader (formats/json) and its accessors.
 * Whatever parses is walked completely (as the tfjs importer walks it). */
#include "fuzz.h"
#include "json/json.h"

static size_t walk(const json_value *v, int depth)
{
	size_t n = 1;
	int64_t i;
	double f;
	FUZZ_ASSERT(depth <= 64);
	FUZZ_ASSERT(json_type_name(v->type) != NULL);
	if (v->type == JSON_STRING)
		FUZZ_ASSERT(v->text && v->text[v->len] == 0);
	(void)json_int64(v, &i);
	(void)json_double(v, &f);
	if (v->type == JSON_ARRAY || v->type == JSON_OBJECT)
		for (size_t k = 0; k < v->len; k++) {
			if (v->type == JSON_OBJECT)
				FUZZ_ASSERT(json_get(v, v->keys[k]) == &v->items[k]);
			n += walk(&v->items[k], depth + 1);
		}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256] = "";
	json_doc *doc = json_parse((const char *)data, size, NULL, err, sizeof err);
	if (!doc) {
		FUZZ_ASSERT(err[0] && memchr(err, 0, sizeof err));
		return 0;
	}
	walk(json_root(doc), 0);
	json_free(doc);
	return 0;
}
