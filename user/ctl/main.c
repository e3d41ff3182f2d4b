// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xfabctl: look at a running (or stopped) xfab switch through its pinned
 * maps alone. `xfabctl [options] show <object>`, `-j` for JSON. What
 * changes the switch (te add/del/clear, clear counters/watermark) is a
 * request to its xfabd over the control socket (docs/CONTROL.md).
 *
 * This file: the command line read against the command table
 * (commands.c) and the option tables, the switch's pin directory, and the
 * dispatch. Each command lives in its own file (show_*.c, hash.c,
 * trace.c, te.c, watch.c, clear.c); ctl.h is what they share.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "opts.h"

/* ROOT/<lab>/NAME, when exactly one lab has a switch NAME. */
static int find_in_labs(const char *root, const char *name)
{
	DIR *d = opendir(root);
	struct dirent *de;
	struct stat st;
	char path[512];
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", root, de->d_name, name);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			found++;
			snprintf(ctl_pin_dir, sizeof(ctl_pin_dir), "%s", path);
		}
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

/* With no -s/-P: the only switch under the pin root, if there is one. */
static int find_single_switch(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int found = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		found++;
		snprintf(ctl_pin_dir, sizeof(ctl_pin_dir), "%s/%s", root, de->d_name);
	}
	closedir(d);
	return found == 1 ? 0 : -1;
}

/* Set by a --help anywhere on the command line: the help of the command
 * its words name, whatever else was given. */
static int ctl_help_asked;

/* rows[*n] = o, unless a row of that name is there already (hash and
 * trace share --in; every copy stores into the same field). */
static void ctl_union_add(struct xfab_opt *rows, size_t *n, size_t cap, const struct xfab_opt *o)
{
	for (; o && o->kind; o++) {
		size_t i = 0;

		while (i < *n && strcmp(rows[i].name, o->name))
			i++;
		if (i == *n && *n + 1 < cap)
			rows[(*n)++] = *o;
	}
}

static void ctl_union_walk(const struct ctl_cmd *table, struct xfab_opt *rows, size_t *n,
			   size_t cap)
{
	for (const struct ctl_cmd *c = table; c->name; c++) {
		ctl_union_add(rows, n, cap, c->opts);
		if (c->sub)
			ctl_union_walk(c->sub, rows, n, cap);
	}
}

/*
 * Every option of every command, to find the command's words wherever the
 * options stand (getopt moves the words to the end: argv[first..]); the
 * values are kept. The table's own "help" row comes before the one opts.c
 * adds, so --help is noted here and answered once the words are known.
 */
static int ctl_parse_all(int argc, char **argv)
{
	static const struct xfab_opt help_row =
	    XFAB_OPT_FLAG("help", 'h', ctl_help_asked, "this text (or a command's: CMD --help)");
	struct xfab_opt rows[64];
	size_t n = 1;

	rows[0] = help_row;
	ctl_union_add(rows, &n, sizeof(rows) / sizeof(rows[0]), ctl_global_opts);
	ctl_union_walk(ctl_top_cmds, rows, &n, sizeof(rows) / sizeof(rows[0]));
	rows[n] = (struct xfab_opt){.kind = XFAB_OPTK_END};
	return xfab_opts_parse(&(const struct xfab_opts){"xfabctl", "COMMAND", rows, NULL}, argc,
			       argv);
}

/* The --help of the command the words name, as far as they are known. */
static int ctl_help(int first, int argc, char **argv)
{
	const struct ctl_cmd *table = ctl_top_cmds, *c = NULL;
	char words[256] = "";

	for (int i = first; i < argc && table; i++) {
		const struct ctl_cmd *next = table;

		while (next->name && strcmp(next->name, argv[i]))
			next++;
		if (!next->name)
			break;
		snprintf(words + strlen(words), sizeof(words) - strlen(words), "%s%s",
			 *words ? " " : "", argv[i]);
		c = next;
		table = next->sub;
	}
	if (c)
		ctl_cmd_usage(c, words, stdout);
	else
		ctl_usage(stdout);
	return 0;
}

/*
 * Walk the table: each word must be known; a leaf must be the last (or a
 * node with words under it that is a view itself: show vnet). The command,
 * its words in words[len]; NULL when refused (said, with the usage).
 */
static const struct ctl_cmd *ctl_find_cmd(int first, int argc, char **argv, char *words, size_t len)
{
	const struct ctl_cmd *table = ctl_top_cmds, *parent = NULL;
	int under_show = 0;

	words[0] = '\0';
	for (int i = first;; i++) {
		const struct ctl_cmd *next = table;

		if (i >= argc) {
			if (parent && parent->view)
				return parent;
			break;
		}
		while (next->name && strcmp(next->name, argv[i]))
			next++;
		if (!next->name) {
			if (under_show)
				fprintf(stderr, "xfabctl: unknown object '%s'\n", argv[i]);
			break;
		}
		snprintf(words + strlen(words), len - strlen(words), "%s%s", *words ? " " : "",
			 argv[i]);
		if (!next->sub) {
			if (next->operand && i + 2 == argc) {
				ctl_given.operand = argv[i + 1];
				return next;
			}
			if (i + 1 == argc && !next->operand)
				return next;
			fprintf(stderr, "usage: xfabctl %s %s\n", words,
				next->args ? next->args : "");
			return NULL;
		}
		if (next->sub == ctl_show_cmds)
			under_show = 1;
		parent = next;
		table = next->sub;
	}
	ctl_usage(stderr);
	return NULL;
}

/* The switch's pin directory from -s, -P or the only switch there is:
 * 0, or 1 when none is found (said). */
static int ctl_resolve_switch(void)
{
	const char *root = ctl_pin_root ? ctl_pin_root : getenv("XFAB_PIN_ROOT");
	const char *dir = ctl_pin_dir_opt ? ctl_pin_dir_opt : getenv("XFAB_PIN_DIR");

	if (!root)
		root = XFAB_PIN_ROOT;
	if (ctl_switch) {
		struct stat st;

		xfab_pin_dir(ctl_pin_dir, sizeof(ctl_pin_dir), root, ctl_switch);
		/* A lab pins under ROOT/LAB/SWITCH: -s leaf1 finds it when one
		 * lab has a leaf1 (-s LAB/leaf1 always does). */
		if (stat(ctl_pin_dir, &st) && find_in_labs(root, ctl_switch)) {
			fprintf(stderr,
				"xfabctl: no switch %s under %s (or in exactly one lab there)\n",
				ctl_switch, root);
			return 1;
		}
	} else if (dir) {
		snprintf(ctl_pin_dir, sizeof(ctl_pin_dir), "%s", dir);
	} else if (find_single_switch(root)) {
		fprintf(stderr, "xfabctl: name a switch with -s (none or several under %s)\n",
			root);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct xfab_opt rows[64];
	const struct ctl_cmd *c;
	char words[256], prog[300];
	int first, ret;

	first = ctl_parse_all(argc, argv);
	if (first < 0)
		return xfab_opts_exit(first);
	if (ctl_help_asked)
		return ctl_help(first, argc, argv);
	c = ctl_find_cmd(first, argc, argv, words, sizeof(words));
	if (!c)
		return 2;
	/* again with what this command takes: another command's option is
	 * refused, naming the command */
	ctl_cmd_rows(c, rows, sizeof(rows) / sizeof(rows[0]));
	snprintf(prog, sizeof(prog), "xfabctl %s", words);
	ret = xfab_opts_parse(&(const struct xfab_opts){prog, c->args, rows, NULL}, argc, argv);
	if (ret < 0)
		return xfab_opts_exit(ret);
	/* fabric commands find every switch's pins in the fabric's description;
	 * a command given a config file reads that, not a switch */
	if (!c->fabric && !(c->config_file && ctl_given.config) && ctl_resolve_switch())
		return 1;
	ret = c->view ? c->view() : c->verb(&ctl_given);
	if (ctl_json)
		ctl_jw_end();
	return ret;
}
