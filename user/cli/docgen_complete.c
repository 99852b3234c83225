// SPDX-License-Identifier: MIT
/* bash and zsh completion scripts from the option table: every option, and
 * for each value what can follow it: the row's choices (-e, -f, --jp's
 * letters, --push-api), files or directories (from the argument's name in
 * -h), the PIDs of running LuaJIT processes for -p. */
#include <getopt.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/docgen.h"
#include "cli/options_table.h"

enum value_kind { VAL_NONE, VAL_WORDS, VAL_LETTERS, VAL_FILE, VAL_DIR, VAL_PID, VAL_OTHER };

static enum value_kind value_kind(const struct opt_row *r)
{
	if (r->arg == no_argument)
		return VAL_NONE;
	if (r->choices)
		return r->flags & OPTF_LETTERS ? VAL_LETTERS : VAL_WORDS;
	if (!strcmp(r->meta, "FILE") || !strcmp(r->meta, "F"))
		return VAL_FILE;
	if (!strcmp(r->meta, "DIR"))
		return VAL_DIR;
	if (!strncmp(r->meta, "PID", 3))
		return VAL_PID;
	return VAL_OTHER;
}

/* A LuaJIT process, as the tests' wait_lua sees one: its executable or a
 * mapped library names luajit.  (-a's discovery reads the ELF files; for a
 * list of candidates the names suffice.) */
static const char pid_test[] =
	"[[ $(readlink \"$d/exe\" 2>/dev/null) == *luajit* ]] || grep -qs luajit \"$d/maps\"";

/* The command words of cli/commands.h, space-separated, record's
 * included: offered for the first word only. */
static const char *command_words(void)
{
	static char words[256];
	size_t n = 0;

	if (words[0])
		return words;
	for (int i = 0; i < CMD__COUNT && n < sizeof(words) - 1; i++)
		n += (size_t)snprintf(words + n, sizeof(words) - n, "%s%s", n ? " " : "",
				      commands[i].word);
	return words;
}

/* -- bash ------------------------------------------------------------------ */

/* "-e|--event" */
static void bash_pattern(FILE *f, const struct opt_row *r)
{
	if (r->letter)
		fprintf(f, "-%c|", r->letter);
	fprintf(f, "--%s", r->name);
}

static void bash_value_case(FILE *f, const struct opt_row *r)
{
	enum value_kind k = value_kind(r);

	if (k == VAL_NONE)
		return;
	fputs("\t", f);
	bash_pattern(f, r);
	fputs(")\n", f);
	/* --tree[=self]: a value only in the same word. */
	if (r->arg == optional_argument)
		fputs("\t\t[[ $eq ]] || break\n", f);
	switch (k) {
	case VAL_WORDS:
		fprintf(f, "\t\tCOMPREPLY=($(compgen -W '%s' -- \"$cur\"))\n", r->choices);
		break;
	case VAL_LETTERS:
		fprintf(f, "\t\tCOMPREPLY=($(compgen -W \"$(_luabpfprof_letters '%s' \"$cur\")\" "
			"-- \"$cur\"))\n", r->choices);
		break;
	case VAL_FILE:
		fputs("\t\tcompopt -o filenames 2>/dev/null\n"
		      "\t\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n", f);
		break;
	case VAL_DIR:
		fputs("\t\tcompopt -o filenames 2>/dev/null\n"
		      "\t\tCOMPREPLY=($(compgen -d -- \"$cur\"))\n", f);
		break;
	case VAL_PID:
		fputs("\t\tlocal pre=\n"
		      "\t\t[[ $cur == *,* ]] && pre=${cur%,*},\n"
		      "\t\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$(_luabpfprof_pids)\" -- "
		      "\"${cur##*,}\"))\n", f);
		break;
	default:
		fputs("\t\tCOMPREPLY=()\n", f);	/* a number, a URL: nothing to offer */
		break;
	}
	fputs("\t\treturn ;;\n", f);
}

int docgen_bash(FILE *f)
{
	fprintf(f, "# bash completion for luabpfprof(1); generated from the option table\n"
		"# (user/cli/options.c) by docgen: do not edit.\n\n"
		"# PIDs of running LuaJIT processes, for -p.\n"
		"_luabpfprof_pids()\n{\n"
		"\tlocal d\n"
		"\tfor d in /proc/[0-9]*; do\n"
		"\t\t%s && echo \"${d#/proc/}\"\n"
		"\tdone\n}\n\n"
		"# _luabpfprof_letters LETTERS CUR: CUR and one more letter not in it.\n"
		"_luabpfprof_letters()\n{\n"
		"\tlocal l\n"
		"\tfor l in $1; do [[ $2 == *\"$l\"* ]] || echo \"$2$l\"; done\n}\n\n"
		"_luabpfprof()\n{\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev= eq= i\n"
		"\t((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
		"\t# \"--opt=value\", which COMP_WORDBREAKS splits at the '='.\n"
		"\tif [[ $cur == = ]]; then\n\t\tcur= eq=1\n"
		"\telif [[ $prev == = ]] && ((COMP_CWORD > 1)); then\n"
		"\t\tprev=${COMP_WORDS[COMP_CWORD - 2]} eq=1\n\tfi\n"
		"\t# After --: a command, then its arguments.\n"
		"\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
		"\t\t[[ ${COMP_WORDS[i]} == -- ]] || continue\n"
		"\t\tcompopt -o filenames 2>/dev/null\n"
		"\t\tif ((i == COMP_CWORD - 1)); then COMPREPLY=($(compgen -c -- \"$cur\"))\n"
		"\t\telse COMPREPLY=($(compgen -f -- \"$cur\")); fi\n"
		"\t\treturn\n\tdone\n"
		"\twhile :; do\n\t\tcase $prev in\n", pid_test);
	for (int i = 0; i < options_nrows; i++)
		bash_value_case(f, &options_rows[i]);
	fprintf(f, "\t\tesac\n\t\tbreak\n\tdone\n"
		"\t[[ $eq ]] && { COMPREPLY=(); return; }\n"
		"\tlocal words=\n"
		"\t((COMP_CWORD == 1)) && words='%s '\n"
		"\tCOMPREPLY=($(compgen -W \"$words\"'", command_words());
	for (int i = 0; i < options_nrows; i++) {
		const struct opt_row *r = &options_rows[i];

		if (r->letter)
			fprintf(f, "-%c ", r->letter);
		fprintf(f, "--%s%s", r->name, i + 1 < options_nrows ? " " : "");
	}
	fputs("' -- \"$cur\"))\n}\n\ncomplete -F _luabpfprof luabpfprof\n", f);
	return ferror(f) ? -1 : 0;
}

/* -- zsh ------------------------------------------------------------------- */

/* The help on one line, for a description inside [...] of a spec in
 * single quotes. */
static void zsh_description(FILE *f, const char *help)
{
	for (const char *p = help; *p; p++) {
		if (*p == '\'')
			fputs("'\\''", f);
		else if (strchr("[]:\\", *p))
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputc(' ', f);
		else
			fputc(*p, f);
	}
}

static void zsh_action(FILE *f, const struct opt_row *r)
{
	switch (value_kind(r)) {
	case VAL_WORDS:
		fprintf(f, ":(%s)", r->choices);
		break;
	case VAL_LETTERS:
		fprintf(f, ":_luabpfprof_%s", r->name);
		break;
	case VAL_FILE:
		fputs(":_files", f);
		break;
	case VAL_DIR:
		fputs(":_files -/", f);
		break;
	case VAL_PID:
		fputs(":_luabpfprof_pids", f);
		break;
	default:
		fputs(":", f);
		break;
	}
}

/* '(-e --event)'{-e+,--event=}'[what to profile ...]:EV:(cpu ...)' */
static void zsh_spec(FILE *f, const struct opt_row *r)
{
	const char *arg = r->arg == required_argument ? "=" :
			  r->arg == optional_argument ? "=-" : "";
	bool repeat = strstr(r->help, "repeatable") != NULL;

	fputs("\t", f);
	if (repeat)
		fputs("'*'", f);
	else if (r->letter)
		fprintf(f, "'(-%c --%s)'", r->letter, r->name);
	if (r->letter)
		fprintf(f, "{-%c%s,--%s%s}'", r->letter, *arg ? "+" : "", r->name, arg);
	else
		fprintf(f, "'--%s%s", r->name, arg);
	fputc('[', f);
	zsh_description(f, r->help);
	fputc(']', f);
	if (r->arg != no_argument) {
		fputs(r->arg == optional_argument ? "::" : ":", f);
		for (const char *m = r->meta; *m; m++)
			if (!strchr("[]:", *m))
				fputc(*m, f);
		zsh_action(f, r);
	}
	fputs("' \\\n", f);
}

/* _luabpfprof_jp: the row's letters combine ("Fl"); offers the word so far
 * plus one letter it does not have yet.  ("$@": _arguments' compadd
 * options.) */
static void zsh_letters_function(FILE *f, const struct opt_row *r)
{
	fprintf(f, "_luabpfprof_%s() {\n"
		"\tlocal l\n\tlocal -a more\n"
		"\tfor l in %s; do [[ $PREFIX == *$l* ]] || more+=($l); done\n"
		"\tcompset -P '*'\n"
		"\tcompadd \"$@\" -S '' -a more\n}\n\n", r->name, r->choices);
}

int docgen_zsh(FILE *f)
{
	fprintf(f, "#compdef luabpfprof\n"
		"# zsh completion for luabpfprof(1); generated from the option table\n"
		"# (user/cli/options.c) by docgen: do not edit.\n\n"
		"# PIDs of running LuaJIT processes, for -p (a comma-separated list).\n"
		"_luabpfprof_pids() {\n"
		"\tlocal d\n\tlocal -a pids\n"
		"\tfor d in /proc/<->(N); do\n"
		"\t\t%s && pids+=(${d:t})\n"
		"\tdone\n"
		"\t(( $#pids )) || return 1\n"
		"\t_values -s , 'LuaJIT process' $pids\n}\n\n", pid_test);
	for (int i = 0; i < options_nrows; i++)
		if (value_kind(&options_rows[i]) == VAL_LETTERS)
			zsh_letters_function(f, &options_rows[i]);
	fprintf(f, "# The command word, first and alone.\n"
		"(( CURRENT == 2 )) && [[ $PREFIX != -* ]] && compadd -- %s\n", command_words());
	fputs("_arguments -s -S \\\n", f);
	for (int i = 0; i < options_nrows; i++)
		zsh_spec(f, &options_rows[i]);
	fputs("\t'*::command:_normal'\n", f);
	return ferror(f) ? -1 : 0;
}

const struct opt_row *docgen_row(const char *name)
{
	for (int i = 0; i < options_nrows; i++)
		if (!strcmp(options_rows[i].name, name))
			return &options_rows[i];
	return NULL;
}
