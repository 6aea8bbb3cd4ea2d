/* json.h - a small strict JSON reader (RFC 8259) for model descriptions
 * such as TensorFlow.js's model.json.
 *
 * The whole text is parsed into a tree owned by one json_doc. Input is
 * hostile: nesting depth, text size and value count are limited, strings
 * must be valid UTF-8 (escapes included, surrogates paired), numbers follow
 * the JSON grammar, objects may not repeat a key, and nothing but white
 * space may follow the value. Like libir, nothing here prints or exits. */
#ifndef NPUKIT_JSON_H
#define NPUKIT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
	JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} json_type;

typedef struct json_value json_value;
struct json_value {
	json_type type;
	bool b;			/* JSON_BOOL */
	double num;		/* JSON_NUMBER */
	const char *text;	/* JSON_NUMBER: its literal; JSON_STRING: decoded, NUL-terminated */
	size_t len;		/* string bytes (may contain NUL), array/object count */
	json_value *items;	/* array elements, object values */
	const char **keys;	/* object keys, in file order */
	int line;		/* where the value starts (1-based) */
};

typedef struct json_doc json_doc;

typedef struct {
	int max_depth;		/* nesting of arrays/objects (0: 64) */
	size_t max_size;	/* bytes of text (0: 256 MiB) */
} json_limits;

/* Parse buf[0..size). Returns NULL with a one-line message in err
 * ("line L: ...") on bad input or out of memory. */
json_doc *json_parse(const char *buf, size_t size, const json_limits *lim, char *err, size_t errsize);
const json_value *json_root(const json_doc *doc);
void json_free(json_doc *doc);

/* Member key of an object, or NULL (also when v is not an object). */
const json_value *json_get(const json_value *v, const char *key);
/* An integer: a number without fraction or exponent, or a string of one
 * (protobuf's JSON mapping writes int64 as strings). 0 on success, -1 if v
 * is something else or out of int64 range. */
int json_int64(const json_value *v, int64_t *out);
/* A number, or a string "NaN", "Infinity", "-Infinity" or a numeral
 * (protobuf's JSON mapping of float). 0 on success. */
int json_double(const json_value *v, double *out);
/* Name of a type for messages ("an object", "a string", ...). */
const char *json_type_name(json_type t);

#endif
