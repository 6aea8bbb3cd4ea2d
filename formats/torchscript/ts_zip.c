/* ts_zip.c - read a TorchScript archive: a zip whose entries all sit in one
 * top folder of arbitrary name (top/data.pkl, top/code/..., top/data/N).
 *
 * libzip reads the central directory over the caller's buffer (no copy),
 * checks every local header against it (ZIP_CHECKCONS) and the CRC of every
 * entry read. Sizes come from the central directory and are bounded before
 * anything is allocated: a stored entry cannot be larger than the archive,
 * a deflated one not larger than deflate's maximum ratio allows. */
#include "torchscript/ts_internal.h"

#include <stdlib.h>
#include <string.h>
#include <zip.h>

#define DEFLATE_MAX_RATIO 1032	/* zlib's worst case expansion */

struct ts_zip {
	zip_t *za;
	zip_source_t *src;
	char prefix[256];
	size_t archive_size;
};

static int zfail(ir_diag *d, int code)
{
	zip_error_t e;
	zip_error_init_with_code(&e, code);
	if (code == ZIP_ER_NOZIP)
		ir_fail(d, -1, -1, "not a TorchScript archive (not a zip file, or a truncated one)");
	else
		ir_fail(d, -1, -1, "corrupt zip archive (%s)", zip_error_strerror(&e));
	zip_error_fini(&e);
	return -1;
}

ts_zip *ts_zip_open(const uint8_t *buf, size_t size, ir_diag *d)
{
	ts_zip *z = calloc(1, sizeof *z);
	zip_error_t err;
	if (!z) {
		ir_fail(d, -1, -1, "out of memory");
		return NULL;
	}
	zip_error_init(&err);
	z->archive_size = size;
	z->src = zip_source_buffer_create(size ? (const void *)buf : (const void *)"", size, 0, &err);
	if (z->src)
		z->za = zip_open_from_source(z->src, ZIP_RDONLY | ZIP_CHECKCONS, &err);
	if (!z->za) {
		zfail(d, zip_error_code_zip(&err));
		zip_error_fini(&err);
		if (z->src)
			zip_source_free(z->src);
		free(z);
		return NULL;
	}
	zip_error_fini(&err);
	/* the top folder: the one holding data.pkl (torch names it after the
	 * file it first saved to, which is arbitrary) */
	zip_int64_t n = zip_get_num_entries(z->za, 0);
	bool found = false;
	for (zip_int64_t i = 0; i < n && !found; i++) {
		const char *name = zip_get_name(z->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		size_t len = name ? strlen(name) : 0;
		if (len < 8 || strcmp(name + len - 8, "data.pkl"))
			continue;
		const char *slash = strchr(name, '/');
		if (len == 8 || (slash == name + len - 9 && len - 8 < sizeof z->prefix)) {
			memcpy(z->prefix, name, len - 8);
			z->prefix[len - 8] = 0;
			found = true;
		}
	}
	if (!found) {
		ir_fail(d, -1, -1, "not a TorchScript archive: the zip file has no data.pkl");
		ts_zip_close(z);
		return NULL;
	}
	return z;
}

void ts_zip_close(ts_zip *z)
{
	if (!z)
		return;
	if (z->za)
		zip_discard(z->za);	/* frees the source too */
	free(z);
}

const char *ts_zip_prefix(const ts_zip *z) { return z->prefix; }

static zip_int64_t locate(ts_zip *z, const char *name)
{
	char full[1024];
	if ((size_t)snprintf(full, sizeof full, "%s%s", z->prefix, name) >= sizeof full)
		return -1;
	return zip_name_locate(z->za, full, ZIP_FL_ENC_RAW);
}

bool ts_zip_has(ts_zip *z, const char *name) { return locate(z, name) >= 0; }

bool ts_zip_has_dir(ts_zip *z, const char *dir)
{
	size_t pl = strlen(z->prefix), dl = strlen(dir);
	zip_int64_t n = zip_get_num_entries(z->za, 0);
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z->za, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		if (name && !strncmp(name, z->prefix, pl) && !strncmp(name + pl, dir, dl) && name[pl + dl] == '/')
			return true;
	}
	return false;
}

int ts_zip_read(ts_zip *z, const char *name, size_t max, uint8_t **data, size_t *size, ir_diag *d)
{
	zip_int64_t idx = locate(z, name);
	zip_stat_t st;
	*data = NULL;
	*size = 0;
	if (idx < 0)
		return 1;
	zip_stat_init(&st);
	if (zip_stat_index(z->za, (zip_uint64_t)idx, ZIP_FL_ENC_RAW, &st) ||
	    !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
		return ir_fail(d, -1, -1, "%s: cannot read its zip directory entry", name);
	if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
		return ir_fail(d, -1, -1, "%s is encrypted", name);
	uint64_t bound = st.comp_method == ZIP_CM_STORE ? st.comp_size :
			 st.comp_size > UINT64_MAX / DEFLATE_MAX_RATIO ? UINT64_MAX : st.comp_size * DEFLATE_MAX_RATIO + 64;
	if (st.comp_size > z->archive_size || st.size > bound)
		return ir_fail(d, -1, -1, "%s: its size in the zip directory (%llu bytes) is impossible", name,
			       (unsigned long long)st.size);
	if (st.size > max || st.size >= SIZE_MAX)
		return ir_fail(d, -1, -1, "%s is too large (%llu bytes)", name, (unsigned long long)st.size);
	uint8_t *p = malloc((size_t)st.size + 1);
	if (!p)
		return ir_fail(d, -1, -1, "out of memory reading %s (%llu bytes)", name, (unsigned long long)st.size);
	zip_file_t *f = zip_fopen_index(z->za, (zip_uint64_t)idx, 0);
	if (!f) {
		free(p);
		return ir_fail(d, -1, -1, "%s: %s", name, zip_strerror(z->za));
	}
	uint64_t got = 0;
	while (got < st.size) {
		zip_int64_t k = zip_fread(f, p + got, st.size - got);
		if (k <= 0)
			break;
		got += (uint64_t)k;
	}
	/* one more read reaches the end, where libzip checks the CRC */
	uint8_t extra;
	zip_int64_t tail = got == st.size ? zip_fread(f, &extra, 1) : -1;
	if (got != st.size || tail != 0) {
		const char *why = got == st.size && tail > 0 ? "longer than its directory entry says" :
				  zip_error_code_zip(zip_file_get_error(f)) == ZIP_ER_OK ? "truncated" : zip_file_strerror(f);
		ir_fail(d, -1, -1, "%s: corrupt zip entry (%s)", name, why);
		zip_fclose(f);
		free(p);
		return -1;
	}
	zip_fclose(f);
	p[st.size] = 0;
	*data = p;
	*size = (size_t)st.size;
	return 0;
}
