/* SPDX-License-Identifier: MIT */
/*
 * trawl chart's PNG writer: a module of its own (chart-png.c,
 * trawl-chart-png.so) that links cairo and paints the library's display
 * list (trawl_timeline_draw(), include/trawl/timeline.h), loaded by
 * chart-module.c only when a PNG is asked for, so that trawl view never
 * maps cairo. The module is handed the display list's structs as they
 * are: TRAWL_CHART_ABI names their layout (and struct chart_png_ops').
 */
#ifndef TRAWL_CHART_H
#define TRAWL_CHART_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <trawl/trawl.h>

/*
 * The PNG module exports one of these as CHART_PNG_SYMBOL.
 */
struct chart_png_ops {
	int abi; /* TRAWL_CHART_ABI */
	/* A canvas of dl's size and background. Return: it, or NULL with
	 * why set. */
	void *(*open)(const trawl_chart_list *dl, char *why, size_t whylen);
	/* Draw dl's items on it. Return: 0, or -1 with why set. */
	int (*draw)(void *canvas, const trawl_chart_list *dl, char *why,
		    size_t whylen);
	/* Write it to f as a PNG (f NULL: do not) and free it. Return: 0, or
	 * -1 with why set. */
	int (*close)(void *canvas, FILE *f, char *why, size_t whylen);
};
#define CHART_PNG_SYMBOL "trawl_chart_png"
#define CHART_PNG_MODULE "trawl-chart-png.so"

/*
 * Load the PNG module (chart-module.c) from $TRAWL_MODULE_DIR, else the
 * directory of the running program (a build tree), else the installed
 * module directory. Return: its operations, or NULL after saying what is
 * missing and what to install.
 */
const struct chart_png_ops *chart_png_load(void);
/* Draw the chart (trawl_timeline_draw()) with the module's operations
 * into f. Return: the exit status (what failed said). */
int chart_png(const struct chart_png_ops *ops, trawl_timeline *tl,
	      const trawl_chart_opts *o, FILE *f);

#endif
