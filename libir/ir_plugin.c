/* ir_plugin.c - loading plugins and finding them by kind and name. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ir_plugin.h"

static ir_plugin *plugins;
static size_t n_plugins, cap_plugins;
static bool scanned;

const char *ir_plugin_kind_name(int kind)
{
	switch (kind) {
	case NPU_PLUGIN_DATASET: return "dataset";
	case NPU_PLUGIN_METRIC: return "metric";
	case NPU_PLUGIN_OP: return "op";
	}
	return "?";
}

static bool name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!(('a' <= *s && *s <= 'z') || ('A' <= *s && *s <= 'Z') || ('0' <= *s && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

static ir_plugin_warn_fn default_warn;

void ir_plugin_set_warn(ir_plugin_warn_fn warn)
{
	default_warn = warn;
}

static void warnf(ir_plugin_warn_fn warn, const char *path, const char *msg)
{
	if (!warn)
		warn = default_warn;
	if (warn)
		warn(path, msg);
}

/* Mark the older of each kind+name pair shadowed. */
static void rank(size_t added)
{
	ir_plugin *p = &plugins[added];
	for (size_t i = 0; i < added; i++) {
		ir_plugin *q = &plugins[i];
		if (q->shadowed || q->desc->kind != p->desc->kind || strcmp(q->desc->name, p->desc->name))
			continue;
		if (p->desc->version > q->desc->version)
			q->shadowed = true;
		else
			p->shadowed = true;
		return;
	}
}

int ir_plugin_load(const char *path, ir_plugin_warn_fn warn, char *err, size_t errlen)
{
	for (size_t i = 0; i < n_plugins; i++)
		if (!strcmp(plugins[i].path, path))
			return 0;	/* loaded already */
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(err, errlen, "cannot load plugin: %s", e ? e : "dlopen failed");
		return -1;
	}
	npu_plugins_fn fn;
	*(void **)&fn = dlsym(h, NPU_PLUGINS_SYMBOL);
	const npu_plugin_desc *const *list = fn ? fn() : NULL;
	if (!list) {
		snprintf(err, errlen, "not a plugin: no %s()", NPU_PLUGINS_SYMBOL);
		dlclose(h);
		return -1;
	}
	char *keep = strdup(path);
	size_t before = n_plugins, skipped = 0;	/* warned about, or loaded already */
	for (size_t i = 0; keep && list[i] && i < 1024; i++) {
		const npu_plugin_desc *d = list[i];
		char msg[256];
		bool again = false;	/* the same object by another path (dlopen gave its handle) */
		for (size_t k = 0; k < n_plugins && !again; k++)
			again = plugins[k].desc == d;
		if (again) {
			skipped++;
			continue;
		}
		if (d->abi != NPU_PLUGIN_ABI) {
			snprintf(msg, sizeof msg, "plugin %zu has ABI %u, this program %d: skipped", i, d->abi,
				 NPU_PLUGIN_ABI);
			warnf(warn, path, msg);
			skipped++;
			continue;
		}
		if (d->kind < NPU_PLUGIN_DATASET || d->kind > NPU_PLUGIN_OP || !name_ok(d->name) || !d->impl) {
			snprintf(msg, sizeof msg, "plugin %zu has a bad kind, name or no implementation: skipped", i);
			warnf(warn, path, msg);
			skipped++;
			continue;
		}
		if (n_plugins == cap_plugins) {
			size_t c = cap_plugins ? 2 * cap_plugins : 16;
			ir_plugin *np = realloc(plugins, c * sizeof *np);
			if (!np)
				break;
			plugins = np;
			cap_plugins = c;
		}
		plugins[n_plugins] = (ir_plugin){ d, keep, false };
		rank(n_plugins++);
	}
	if (n_plugins == before) {
		free(keep);	/* the handle stays: a plugin's code may be referenced */
		if (skipped)
			return 0;	/* each one was warned about or is loaded: no second message */
		snprintf(err, errlen, "no usable plugin in the file");
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every "*.so" regular file of dir, in name order (a fixed load order, so
 * which of two equal versions wins does not depend on the file system). */
static void scan_dir(const char *dir, ir_plugin_warn_fn warn)
{
	DIR *dp = opendir(dir);
	if (!dp)
		return;
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dp))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".so"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			char **nn = realloc(names, cap * sizeof *nn);
			if (!nn)
				break;
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name)))
			break;
		n++;
	}
	closedir(dp);
	if (n)	/* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(names, n, sizeof *names, cmp_str);
	for (size_t i = 0; i < n; i++) {
		char path[4096], err[512];
		struct stat st;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) < sizeof path &&
		    !stat(path, &st) && S_ISREG(st.st_mode) && ir_plugin_load(path, warn, err, sizeof err))
			warnf(warn, path, err);
		free(names[i]);
	}
	free(names);
}

void ir_plugin_scan(ir_plugin_warn_fn warn)
{
	if (scanned)
		return;
	scanned = true;
	const char *env = getenv("NPU_PLUGIN_PATH");
	if (env && *env) {
		char *copy = strdup(env), *save = NULL;
		for (char *dir = copy ? strtok_r(copy, ":", &save) : NULL; dir; dir = strtok_r(NULL, ":", &save))
			scan_dir(dir, warn);
		free(copy);
	}
	scan_dir("./plugin", warn);
}

const ir_plugin *ir_plugin_find(int kind, const char *name)
{
	for (size_t i = 0; i < n_plugins; i++)
		if (!plugins[i].shadowed && (int)plugins[i].desc->kind == kind && !strcmp(plugins[i].desc->name, name))
			return &plugins[i];
	return NULL;
}

size_t ir_plugin_count(void)
{
	return n_plugins;
}

const ir_plugin *ir_plugin_at(size_t i)
{
	return i < n_plugins ? &plugins[i] : NULL;
}

int ir_plugin_spec(const char *spec, char *name, size_t size, const char **args)
{
	const char *colon = strchr(spec, ':');
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
	if (len >= size)
		return -1;
	memcpy(name, spec, len);
	name[len] = 0;
	*args = colon ? colon + 1 : "";
	return 0;
}

void ir_plugin_list(FILE *f)
{
	for (size_t i = 0; i < n_plugins; i++) {
		const ir_plugin *p = &plugins[i];
		fprintf(f, "%-8s %-20s %6u  %s%s%s%s\n", ir_plugin_kind_name((int)p->desc->kind), p->desc->name,
			p->desc->version, p->path, p->shadowed ? " (shadowed)" : "",
			p->desc->summary ? ": " : "", p->desc->summary ? p->desc->summary : "");
	}
}

const char *ir_plugin_where(char *buf, size_t size)
{
	const char *env = getenv("NPU_PLUGIN_PATH");
	if (env && *env)
		snprintf(buf, size, "$NPU_PLUGIN_PATH (%s), then ./plugin", env);
	else
		snprintf(buf, size, "./plugin ($NPU_PLUGIN_PATH is not set)");
	return buf;
}
