/* imgdir - a dataset plugin (npu-plugin(7)): a directory of PGM images
 * and a list of them with their labels.
 *
 *     --dataset imgdir:DIR[,LIST]
 *
 * LIST (default DIR/labels.txt) has one line per sample, "FILE LABEL"
 * (FILE relative to DIR, LABEL a class id), blank lines and lines that
 * start with '#' ignored. Each image is a PGM (P5 binary, 8 or 16 bits,
 * or P2 text) of one size for all; sample i is its pixels scaled by
 * 1/maxval into [0, 1], float32 [1, 1, H, W], and its label int64.
 *
 * Build: cc -shared -fPIC -I<npukit>/share/npu imgdir.c -o imgdir.so */
#define _POSIX_C_SOURCE 200809L	/* strdup */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plugin.h"

typedef struct {
	char *dir;
	FILE *list;
	char *list_path;
	long line;
	int h, w;		/* of the first image */
	float *px;
	int64_t label;
} imgdir;

static void dir_close(void *p)
{
	imgdir *s = p;
	if (!s)
		return;
	if (s->list)
		fclose(s->list);
	free(s->dir);
	free(s->list_path);
	free(s->px);
	free(s);
}

static void *dir_open(const char *args, char *err, size_t len)
{
	imgdir *s = calloc(1, sizeof *s);
	if (!s || !(s->dir = strdup(args))) {
		snprintf(err, len, "out of memory");
		free(s);
		return NULL;
	}
	char *comma = strchr(s->dir, ',');
	if (comma)
		*comma++ = 0;
	if (!*s->dir) {
		snprintf(err, len, "expected imgdir:DIR[,LIST]");
		dir_close(s);
		return NULL;
	}
	size_t n = strlen(s->dir) + 16;
	if (comma)
		s->list_path = strdup(comma);
	else if ((s->list_path = malloc(n)))
		snprintf(s->list_path, n, "%s/labels.txt", s->dir);
	if (!s->list_path) {
		snprintf(err, len, "out of memory");
		dir_close(s);
		return NULL;
	}
	if (!(s->list = fopen(s->list_path, "r"))) {
		snprintf(err, len, "%s: %s", s->list_path, strerror(errno));
		dir_close(s);
		return NULL;
	}
	return s;
}

static int64_t dir_count(void *p)
{
	(void)p;
	return -1;	/* known at the end of the list */
}

/* The next PGM header number (comments skipped); -1 on error. */
static long pgm_num(FILE *f)
{
	int c;
	for (;;) {
		c = getc(f);
		if (c == '#')
			while ((c = getc(f)) != EOF && c != '\n')
				;
		else if (!isspace(c))
			break;
	}
	long v = 0;
	int digits = 0;
	while (c >= '0' && c <= '9' && v < 100000000) {
		v = v * 10 + (c - '0');
		digits++;
		c = getc(f);
	}
	return digits ? v : -1;
}

/* Read path into s->px (allocated at the first image's size). */
static int read_pgm(imgdir *s, const char *path, char *err, size_t len)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = -1;
	char magic[2];
	if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '2')) {
		snprintf(err, len, "%s: not a PGM image (P5 or P2)", path);
		goto out;
	}
	long w = pgm_num(f), h = pgm_num(f), maxval = pgm_num(f);
	if (w <= 0 || h <= 0 || w > 65536 || h > 65536 || w * h > (1L << 26) || maxval <= 0 || maxval > 65535) {
		snprintf(err, len, "%s: bad PGM header", path);
		goto out;
	}
	if (s->px && (w != s->w || h != s->h)) {
		snprintf(err, len, "%s: %ldx%ld, the first image is %dx%d", path, w, h, s->w, s->h);
		goto out;
	}
	if (!s->px) {
		if (!(s->px = malloc(sizeof *s->px * (size_t)(w * h)))) {
			snprintf(err, len, "out of memory");
			goto out;
		}
		s->w = (int)w;
		s->h = (int)h;
	}
	for (long i = 0; i < w * h; i++) {
		long v;
		if (magic[1] == '2')
			v = pgm_num(f);
		else if (maxval < 256)
			v = getc(f);
		else {
			int hi = getc(f), lo = getc(f);
			v = hi < 0 || lo < 0 ? -1 : hi << 8 | lo;
		}
		if (v < 0 || v > maxval) {
			snprintf(err, len, "%s: %s at pixel %ld", path, v < 0 ? "truncated" : "value above maxval", i);
			goto out;
		}
		s->px[i] = (float)v / (float)maxval;
	}
	rc = 0;
out:
	fclose(f);
	return rc;
}

static int dir_next(void *p, npu_plugin_tensor *in, int max_in, int *n_in, npu_plugin_tensor *label, int max_label,
		    int *n_label, char *err, size_t len)
{
	imgdir *s = p;
	char line[4096];
	for (;;) {
		if (!fgets(line, sizeof line, s->list)) {
			if (ferror(s->list)) {
				snprintf(err, len, "%s: read error", s->list_path);
				return -1;
			}
			return 0;
		}
		s->line++;
		if (!strchr(line, '\n') && !feof(s->list)) {
			snprintf(err, len, "%s:%ld: line too long", s->list_path, s->line);
			return -1;
		}
		char *q = line;
		while (isspace((unsigned char)*q))
			q++;
		if (*q && *q != '#')
			break;
	}
	char file[4096], rest[8];
	long long lab;
	int got = sscanf(line, "%4095s %lld %7s", file, &lab, rest);
	if (got != 2 || lab < 0) {
		snprintf(err, len, "%s:%ld: expected 'FILE LABEL' (LABEL a class id)", s->list_path, s->line);
		return -1;
	}
	char path[8192];
	snprintf(path, sizeof path, "%s/%s", s->dir, file);
	if (read_pgm(s, path, err, len))
		return -1;
	if (max_in < 1 || max_label < 1) {
		snprintf(err, len, "no room for a sample");
		return -1;
	}
	s->label = lab;
	in[0] = (npu_plugin_tensor){NPU_PT_F32, 4, {1, 1, s->h, s->w}, s->px};
	label[0] = (npu_plugin_tensor){NPU_PT_I64, 0, {0}, &s->label};
	*n_in = *n_label = 1;
	return 1;
}

static const npu_plugin_dataset impl = {dir_open, dir_count, dir_next, dir_close};
static const npu_plugin_desc desc = {
	NPU_PLUGIN_ABI, NPU_PLUGIN_DATASET, "imgdir", 1,
	"PGM images of a directory listed with labels in DIR/labels.txt (imgdir:DIR[,LIST])", &impl,
};
static const npu_plugin_desc *const list[] = {&desc, NULL};

NPU_PLUGIN_EXPORT const npu_plugin_desc *const *npu_plugins(void)
{
	return list;
}
