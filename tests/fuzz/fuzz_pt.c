/* fuzz_pt.c - whole TorchScript archives (formats/torchscript: zip,
 * pickles, source, interpreter). forward()'s argument shapes come from the
 * zip's archive comment, which torch.jit.save leaves empty, so each seed
 * carries its own --input list and mutations explore shapes too:
 *
 *     0:1,3,16,16;1:1,5:i64
 *
 * (index:dims[:dtype], ';'-separated). Without a comment: 0:1,3,16,16. */
#include "fuzz.h"
#include "torchscript/ts_import.h"

#define MAX_INPUTS 4
#define MAX_ELEMS ((int64_t)1 << 20)	/* keep each input small: the fuzzer is after parsing bugs */

/* The archive comment: the end-of-central-directory record's last field. */
static const uint8_t *zip_comment(const uint8_t *p, size_t size, size_t *len)
{
	size_t lo = size > 22 + 65535 ? size - 22 - 65535 : 0;
	for (size_t i = size >= 22 ? size - 22 + 1 : 0; i-- > lo;)
		if (!memcmp(p + i, "PK\5\6", 4)) {
			size_t n = p[i + 20] | (size_t)p[i + 21] << 8;
			if (i + 22 + n > size)
				return NULL;
			*len = n;
			return p + i + 22;
		}
	return NULL;
}

static int parse_inputs(const char *s, ts_input_shape *in)
{
	int n = 0;
	while (*s && n < MAX_INPUTS) {
		char *end;
		ts_input_shape t = {.dtype = IR_DTYPE_F32};
		long idx = strtol(s, &end, 10);
		if (end == s || *end != ':' || idx < 0 || idx > 16)
			break;
		t.index = (int)idx;
		s = end + 1;
		int64_t elems = 1;
		while (t.shape.rank < IR_MAX_RANK) {
			long v = strtol(s, &end, 10);
			if (end == s || v < 0 || v > 4096 || (v && elems > MAX_ELEMS / v))
				return n;
			elems *= v ? v : 1;
			t.shape.dim[t.shape.rank++] = v;
			s = end;
			if (*s != ',')
				break;
			s++;
		}
		if (*s == ':') {
			size_t k = strcspn(s + 1, ";");
			char dt[8] = "";
			if (k < sizeof dt) {
				memcpy(dt, s + 1, k);
				int d = ir_dtype_from_name(dt);
				if (d >= 0)
					t.dtype = (ir_dtype)d;
			}
			s += 1 + k;
		}
		in[n++] = t;
		if (*s != ';')
			break;
		s++;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ts_input_shape in[MAX_INPUTS] = {{.index = 0, .shape = {4, {1, 3, 16, 16}}, .dtype = IR_DTYPE_F32}};
	int n = 1;
	size_t clen = 0;
	const uint8_t *c = zip_comment(data, size, &clen);
	if (c && clen) {
		char *s = fuzz_strdup(c, clen);
		if (s) {
			n = parse_inputs(s, in);
			free(s);
		}
	}
	ts_import_opts o = {.inputs = in, .n_inputs = n};
	ir_diag d = {0};
	ir_graph *g = ts_import(data, size, &o, &d);
	if (g) {
		FUZZ_ASSERT(ir_graph_verify(g, &d) == 0);
		ir_graph_free(g);
	} else {
		fuzz_check_diag(&d);
	}
	return 0;
}
