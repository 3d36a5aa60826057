/* preset_priv.h: what the preset parser (preset.c), the set and its files
 * (preset_files.c) and the chooser and validator (preset_choose.c) share. */
#ifndef PFMTOP_PRESET_PRIV_H
#define PFMTOP_PRESET_PRIV_H

#include "preset.h"

#include <stdbool.h>
#include <stddef.h>

#define FILE_MAX (1 << 20) /* larger preset files are refused */

/* A blank within a line (not a newline). */
bool preset_is_blank(char c);

/* A character of a preset name: letters, digits, '_' and '-'. */
bool preset_name_char(char c);

/* The index of the base preset called name in set, or -1. */
int preset_group_find(const struct preset_set *set, const char *name);

/* Append to the string in buf (len bytes in all), cut short if need be. */
void preset_appendf(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The index of the event called name in p, or -1. */
int preset_find_event(const struct preset *p, const char *name);

/* The index after the group (a base and its PMU variants) starting at i. */
int preset_group_end(const struct preset_set *set, int i);

#endif
