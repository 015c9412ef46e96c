#include "cli.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_options.h"
#include "oauth.h"
#include "project.h"
#include "suggest.h"

/* ---- resolving the three sources --------------------------------------- */

/* One value into its row's field, through the row's setter. A flag's
 * value is the row's own (--json: "json"). */
static int set_option(struct cli_values *v, const struct cli_option *o, const char *value, enum cli_level level,
		      const char *label, struct err *e)
{
	if (!o->set) /* --config, --help, --version: read before values are set */
		return 0;
	const struct cli_at at = {.v = v, .level = level, .label = label};
	return o->set(o, (char *)v + o->at, o->metavar ? value : o->value, &at, e);
}

/* The highest level that names a project decides; both kinds at that
 * level name one project two ways. */
static int resolve_project(struct cli_values *v, struct err *e)
{
	for (int lv = LEVEL_LINE; lv >= LEVEL_CONFIG; lv--) {
		const struct cli_level_value *name = &v->project[lv], *uid = &v->project_id[lv];
		if (!name->value && !uid->value)
			continue;
		if (name->value && uid->value)
			return err_set(e, ERR_USAGE, "%s and %s name one project two ways: give one", name->label,
				       uid->label);
		return project_ref_from_options(name->value, uid->value, &v->rq.project, e);
	}
	return 0;
}

/* The config file's keys: the options marked for it, NULL-ended. */
static void config_keys(const char **keys)
{
	size_t n = 0;
	for (size_t i = 0; i < cli_n_options; i++)
		if (cli_options[i].config)
			keys[n++] = cli_options[i].name;
	keys[n] = NULL;
}

static int apply_config(struct cli_values *v, const char *line_config, struct config *cfg, struct err *e)
{
	const char *keys[CLI_MAX_OPTIONS + 1];
	config_keys(keys);
	const char *env = getenv("CATALYST_AUDIT_CONFIG");
	int rc;
	if (line_config) {
		if (!*line_config)
			return err_set(e, ERR_USAGE, "--config: the path is empty");
		rc = config_load(cfg, line_config, true, keys, e);
	} else if (env && *env) {
		rc = config_load(cfg, env, true, keys, e);
	} else {
		char *path = config_default_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"));
		rc = path ? config_load(cfg, path, false, keys, e) : 0;
		free(path);
	}
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < cfg->n; i++) {
		const struct config_entry *en = &cfg->entries[i];
		char label[300];
		snprintf(label, sizeof label, "%s:%u: %s", cfg->path, en->line, en->key);
		if (set_option(v, cli_option_by_name(en->key), en->value, LEVEL_CONFIG, label, e) < 0)
			return -1;
	}
	return 0;
}

/* The options with an environment variable, in the table's order. */
static int apply_env(struct cli_values *v, struct err *e)
{
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *o = &cli_options[i];
		const char *value = o->env ? getenv(o->env) : NULL;
		/* Set but empty is unset: `CATALYST_PROJECT= catalyst-audit ...`. */
		if (value && *value && set_option(v, o, value, LEVEL_ENV, o->env, e) < 0)
			return -1;
	}
	return 0;
}

/* Whether the report goes to a terminal: stdout, or an --output-file path
 * that names one (/dev/tty, /dev/stdout on a terminal). Only a character
 * device is opened to ask: opening anything else could have effects (a
 * FIFO's reader would see its writer come and go). */
static bool output_is_terminal(const char *path)
{
	if (!path)
		return isatty(STDOUT_FILENO);
	struct stat st;
	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return false;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool tty = isatty(fd);
	close(fd);
	return tty;
}

/* The terminal and the environment, read once here into the request:
 * library code reads neither. */
/* The pager, as git chooses one (issue 19): CATALYST_PAGER, else PAGER,
 * else less; "" or cat is none. Only for a text or Markdown report on a
 * terminal: never piped, never JSON, never --output, never with
 * --no-pager (login and the other commands write no report). The screen's
 * height decides later whether the report is taller than it. */
static void resolve_pager(struct audit_request *rq, enum audit_command cmd)
{
	rq->pager = NULL;
	if (rq->no_pager || !(ON(cmd) & ON_REPORT) || rq->output_file || !isatty(STDOUT_FILENO) ||
	    !render_format_is(rq->format, FORMAT_FOR_PEOPLE))
		return;
	const char *p = getenv("CATALYST_PAGER");
	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	if (!*p || strcmp(p, "cat") == 0)
		return;
	struct winsize ws;
	const char *lines = getenv("LINES");
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0)
		rq->screen_rows = ws.ws_row;
	else
		rq->screen_rows = lines && atoi(lines) > 0 ? atoi(lines) : 24;
	rq->pager = p;
}

static void resolve_terminal(struct audit_request *rq, enum audit_command cmd)
{
	resolve_pager(rq, cmd);
	if (rq->no_color)
		rq->color = COLOR_NEVER;
	const char *no_color = getenv("NO_COLOR");
	if (no_color && *no_color && rq->color == COLOR_AUTO)
		rq->color = COLOR_NEVER;
	if (rq->color == COLOR_AUTO && (cli_option_by_name("color")->commands & ON(cmd))) {
		const char *term = getenv("TERM");
		bool dumb = term && strcmp(term, "dumb") == 0;
		rq->color = !dumb && output_is_terminal(rq->output_file) ? COLOR_ALWAYS : COLOR_NEVER;
	}
	/* A script or CI job must never sit waiting for a browser. */
	const char *ci = getenv("CI");
	rq->ci = ci && *ci;
	rq->may_prompt = isatty(STDIN_FILENO) && !rq->ci;
	/* For tests and slow hands: how long the sign-in listener waits. */
	const char *t = getenv("CATALYST_LOGIN_TIMEOUT");
	if (t && *t)
		rq->login_timeout_s = strtol(t, NULL, 10);
}

/* What sign-in and --web take from the environment, read here once: the
 * library reads no environment. The token folder is this file's until the
 * next parse (rq borrows it). */
static void resolve_sign_in_env(struct audit_request *rq)
{
	static char *token_dir;
	const char *token = getenv("CATALYST_TOKEN");
	rq->env_token = token && *token ? token : NULL;
	rq->browser = getenv("BROWSER");
	free(token_dir);
	/* NULL when neither is usable: the error comes where the folder is needed */
	token_dir = oauth_store_default_dir(getenv("XDG_CONFIG_HOME"), getenv("HOME"), NULL);
	rq->token_dir = token_dir;
}

/* ---- the command line -------------------------------------------------- */

struct setting {
	const struct cli_option *opt;
	const char *value;
	char spelling[48]; /* as typed: "--format", "-o" */
};

/* What the command line holds before anything is set: the options in
 * order, the words, and what cli_parse reads itself. */
struct line {
	struct setting *settings;
	char **positional;
	size_t n_settings, n_positional;
	bool help, version, failed; /* failed: e holds the first mistake */
	const char *config;
};

/* "--stauts=x" -> "stauts" in buf. */
static const char *option_word(const char *arg, char *buf, size_t size)
{
	while (*arg == '-')
		arg++;
	size_t n = strcspn(arg, "=");
	if (n >= size)
		n = size - 1;
	memcpy(buf, arg, n);
	buf[n] = '\0';
	return buf;
}

static const char *nearest_option(const char *word)
{
	const char *names[CLI_MAX_OPTIONS];
	for (size_t i = 0; i < cli_n_options; i++)
		names[i] = cli_options[i].name;
	return suggest_nearest(word, names, cli_n_options);
}

static int unknown_option(const char *arg, struct err *e)
{
	char word[SUGGEST_MAX_LEN + 1];
	const char *near = nearest_option(option_word(arg, word, sizeof word));
	int len = (int)strcspn(arg, "=");
	if (near)
		return err_set(e, ERR_USAGE, "unknown option %.*s; did you mean --%s?", len > 80 ? 80 : len, arg,
			       near);
	return err_set(e, ERR_USAGE, "unknown option %.*s (see catalyst-audit --help)", len > 80 ? 80 : len, arg);
}

static int unknown_command(const char *word, struct err *e)
{
	const char *names[CLI_MAX_COMMANDS];
	for (size_t i = 0; i < cli_n_commands; i++)
		names[i] = cli_commands[i].name;
	/* Words other tools use for a command of ours (issue 19): `dapr
	 * workflow list` and `ls` list runs here; `get` and `show` one. */
	static const struct {
		const char *word, *command;
	} synonyms[] = {{"list", "runs"}, {"ls", "runs"}, {"get", "run"}, {"show", "run"}};
	const char *near = NULL;
	for (size_t i = 0; i < sizeof synonyms / sizeof *synonyms && !near; i++)
		if (strcmp(word, synonyms[i].word) == 0)
			near = synonyms[i].command;
	if (!near)
		near = suggest_nearest(word, names, cli_n_commands);
	if (near)
		return err_set(e, ERR_USAGE, "unknown command '%.80s'; did you mean '%s'?", word, near);
	return err_set(e, ERR_USAGE, "unknown command '%.80s' (see catalyst-audit --help)", word);
}

/* Only the whole name: getopt_long also takes unambiguous prefixes
 * (`--stat`), which would change meaning the day an option is added. */
static bool spelled_whole(const char *element, const char *name)
{
	size_t n = strlen(name);
	return strncmp(element, "--", 2) == 0 && strncmp(element + 2, name, n) == 0 &&
	       (element[2 + n] == '\0' || element[2 + n] == '=');
}

/* getopt_long's value of a row: its short name, else 256 + its index. */
#define LONG_VAL 256

static const struct cli_option *option_of_val(int val)
{
	if (val >= LONG_VAL && (size_t)(val - LONG_VAL) < cli_n_options)
		return &cli_options[val - LONG_VAL];
	return val > 0 ? cli_option_by_short(val) : NULL;
}

/* getopt_long's tables from the option table. shortopts: "+" stops at the
 * command word and read_line goes on past it (options may come before or
 * after it); ":" tells a missing value from an unknown option. */
static void getopt_tables(struct option *longopts, char *shortopts, size_t size)
{
	size_t k = 0;
	shortopts[k++] = '+';
	shortopts[k++] = ':';
	for (size_t i = 0; i < cli_n_options; i++) {
		const struct cli_option *o = &cli_options[i];
		longopts[i] = (struct option){o->name, o->metavar ? required_argument : no_argument, NULL,
					      o->short_name ? o->short_name : LONG_VAL + (int)i};
		if (o->short_name && k + 3 < size) {
			shortopts[k++] = o->short_name;
			if (o->metavar)
				shortopts[k++] = ':';
		}
	}
	longopts[cli_n_options] = (struct option){0, 0, 0, 0};
	shortopts[k] = '\0';
}

/* The first mistake is kept and reading goes on, so that --help anywhere
 * still helps. */
static void line_fail(struct line *l)
{
	l->failed = true;
}

/* getopt_long's '?' for the element at `at`. */
static void bad_option(struct line *l, char **argv, int at, struct err *e)
{
	const struct cli_option *no_value = optopt && strncmp(argv[at], "--", 2) == 0 ? option_of_val(optopt)
										      : NULL;
	if (l->failed) {
		return;
	} else if (no_value) {
		/* --json=x: a value for an option that takes none */
		err_set(e, ERR_USAGE, "--%s takes no value", no_value->name);
	} else if (optopt) {
		/* -status: a long option with one dash */
		const char *el = argv[at];
		char word[SUGGEST_MAX_LEN + 1];
		const char *near =
			strlen(el) > 2 && el[1] != '-' ? nearest_option(option_word(el, word, sizeof word)) : NULL;
		if (near)
			err_set(e, ERR_USAGE, "unknown option -%c (in %.40s); did you mean --%s?", optopt, el,
				near);
		else
			err_set(e, ERR_USAGE, "unknown option -%c (see catalyst-audit --help)", optopt);
	} else {
		unknown_option(argv[at], e);
	}
	line_fail(l);
}

/* -output is -o with the value "utput": say what was meant. True when
 * that was said. */
static bool short_o_typo(struct line *l, char **argv, int at, const struct cli_option *o, struct err *e)
{
	if (o->set != cli_set_format || optarg == argv[optind - 1] || render_format_by_name(optarg))
		return false;
	char word[SUGGEST_MAX_LEN + 1];
	const char *el = argv[at];
	const char *near = nearest_option(option_word(el, word, sizeof word));
	if (!near || strlen(el) <= 3)
		return false;
	if (!l->failed)
		err_set(e, ERR_USAGE, "unknown option %.40s; did you mean --%s?", el, near);
	line_fail(l);
	return true;
}

/* One option getopt_long returned (c, its row's index idx or -1 for a
 * short one), read from the element at `at`. */
static void line_option(struct line *l, char **argv, int at, int c, int idx, struct err *e)
{
	const struct cli_option *o = idx >= 0 ? &cli_options[idx] : cli_option_by_short(c);
	if (!o)
		return;
	struct setting *s = &l->settings[l->n_settings];
	if (idx >= 0) {
		if (!spelled_whole(argv[at], o->name)) {
			if (!l->failed)
				unknown_option(argv[at], e);
			line_fail(l);
			return;
		}
		snprintf(s->spelling, sizeof s->spelling, "--%s", o->name);
	} else {
		snprintf(s->spelling, sizeof s->spelling, "-%c", o->short_name);
		if (short_o_typo(l, argv, at, o, e))
			return;
	}
	if (o->special == CLI_HELP) {
		l->help = true;
	} else if (o->special == CLI_VERSION) {
		l->version = true;
	} else {
		if (o->special == CLI_CONFIG)
			l->config = optarg;
		s->opt = o;
		s->value = optarg;
		l->n_settings++;
	}
}

static void read_line(struct line *l, int argc, char **argv, struct err *e)
{
	struct option longopts[CLI_MAX_OPTIONS + 1];
	char shortopts[2 * CLI_MAX_OPTIONS + 3];
	getopt_tables(longopts, shortopts, sizeof shortopts);
	optind = 0;
	opterr = 0;
	while (1) {
		/* The element this call reads (an option's separate value is the
		 * next one; getopt_long moves optind past a cluster of short
		 * options only when it is done with it). */
		int at = optind ? optind : 1;
		if (at < argc && strcmp(argv[at], "--") == 0) {
			for (int k = at + 1; k < argc; k++)
				l->positional[l->n_positional++] = argv[k];
			return;
		}
		int idx = -1;
		int c = getopt_long(argc, argv, shortopts, longopts, &idx);
		if (c == -1) {
			if (optind >= argc)
				return;
			l->positional[l->n_positional++] = argv[optind++];
		} else if (c == '?') {
			bad_option(l, argv, at, e);
		} else if (c == ':') {
			const struct cli_option *o = option_of_val(optopt);
			if (!l->failed && o)
				err_set(e, ERR_USAGE, "--%s needs a value (%s)", o->name, o->metavar);
			line_fail(l);
		} else {
			line_option(l, argv, at, c, idx, e);
		}
	}
}

/* The command, its arguments, and what help was asked for: help is given
 * even after a mistake in the options, but never for a command that does
 * not exist. Returns the action, or -1 with e set; *cmd is the command
 * run (NULL for help of the usage summary). */
static int pick_command(const struct line *l, struct audit_request *rq, const struct cli_command **cmd,
			struct err *e)
{
	char *const *pos = l->positional;
	const struct cli_command *c = l->n_positional > 0 ? cli_command_by_name(pos[0]) : NULL;
	size_t first_arg = 1;
	bool help = l->help;
	if (c && c->cmd == CMD_NONE) { /* help [COMMAND] */
		help = true;
		c = NULL;
		if (l->n_positional > 2)
			return err_set(e, ERR_USAGE, "help takes one command, e.g. catalyst-audit help runs");
		if (l->n_positional == 2 && !(c = cli_command_by_name(pos[1])))
			return unknown_command(pos[1], e);
		first_arg = 2;
	}
	if (help && l->n_positional > 0 && !c && first_arg == 1)
		return unknown_command(pos[0], e);
	if (help) {
		rq->command = c ? c->cmd : CMD_NONE;
		return CLI_ACTION_HELP;
	}
	if (l->version)
		return CLI_ACTION_VERSION;
	if (l->failed)
		return -1;
	if (l->n_positional == 0)
		return err_set(e, ERR_USAGE, "no command given (see catalyst-audit --help)");
	if (!c)
		return unknown_command(pos[0], e);
	size_t nargs = l->n_positional - first_arg;
	if ((int)nargs < c->min_args || (int)nargs > c->max_args)
		return err_set(e, ERR_USAGE, "usage: catalyst-audit %s%s%s (see catalyst-audit %s --help)",
			       c->name, *c->args ? " " : "", c->args, c->name);
	rq->command = c->cmd;
	rq->run = c->run;
	for (size_t k = 0; k < nargs && k < 2; k++)
		rq->args[k] = pos[first_arg + k];
	if (c->cmd == CMD_STATS && nargs) {
		/* The report paths, in the positional list (cli_parse hands it
		 * to cfg, which outlives rq). */
		rq->reports = (const char *const *)(pos + first_arg);
		rq->n_reports = nargs;
	}
	if (c->cmd == CMD_FILE || c->cmd == CMD_REVIEW) {
		/* Every path; the list is kept until exit (cli_parse hands it to cfg). */
		rq->files = (const char *const *)pos + first_arg;
		rq->n_files = nargs;
	}
	if ((c->cmd == CMD_RUN || c->cmd == CMD_LINK) && nargs == 1) {
		/* RUN_ID alone: the app is found through the run list. */
		rq->args[1] = rq->args[0];
		rq->args[0] = NULL;
	}
	*cmd = c;
	return CLI_ACTION_RUN;
}

/* A filter or option the command would ignore is a mistake to say, not to
 * pass over: `run --status failed` audits no failed run. */
static int check_applies(const struct line *l, const struct cli_command *cmd, struct err *e)
{
	for (size_t i = 0; i < l->n_settings; i++) {
		if (l->settings[i].opt->commands & ON(cmd->cmd))
			continue;
		char list[128];
		cli_command_list(l->settings[i].opt->commands, list, sizeof list);
		return err_set(e, ERR_USAGE, "%s does not apply to %s (only to %s; see catalyst-audit %s --help)",
			       l->settings[i].spelling, cmd->name, list, cmd->name);
	}
	return 0;
}

/* A filter given twice means either value (OR); any other option with a
 * value given twice on the command line with two different values is a
 * mistake to say, not one for the last to win silently (`--limit 10 ...
 * --limit 100`). The config file and the environment are defaults, not
 * given twice. The format has its own message (cli_set_format). */
static int given_twice(const struct line *l, struct err *e)
{
	for (size_t i = 0; i < l->n_settings; i++) {
		const struct setting *s = &l->settings[i];
		if (!s->opt->metavar || s->opt->set == cli_set_values || s->opt->set == cli_set_format)
			continue;
		for (size_t k = 0; k < i; k++)
			if (l->settings[k].opt == s->opt && strcmp(l->settings[k].value, s->value) != 0)
				return err_set(e, ERR_USAGE, "%s is given twice, as '%.80s' and '%.80s': give one",
					       s->spelling, l->settings[k].value, s->value);
	}
	return 0;
}

/* The format, from what asked for it: the command line (-o, --output, --format,
 * --json), else --output-file's name (a command-line choice too, so it beats the
 * config file), else the config file, whose `format` is a default for
 * reports only. One rule for a format the command does not write: asked on
 * the command line it is a usage error naming the ones it does; --output-file's
 * name asks for nothing then, and the command writes text. */
static int resolve_format(struct cli_values *v, const struct cli_command *cmd, struct err *e)
{
	struct audit_request *rq = &v->rq;
	if (!(cli_option_by_name("format")->commands & ON(cmd->cmd)))
		return 0;
	unsigned formats = render_formats_for(cmd->writes);
	if (v->line_format_set && !(formats & (1u << v->line_format))) {
		char words[128];
		render_format_words(formats, words, sizeof words);
		return err_set(e, ERR_USAGE, "%s %s: %s writes %s", v->line_format_label,
			       render_format_row(v->line_format)->name, cmd->name, words);
	}
	const struct render_format_row *by_name = rq->output_file ? render_format_of_path(rq->output_file) : NULL;
	bool by_line = v->line_format_set;
	if (!by_line && by_name && (formats & (1u << by_name->format))) {
		rq->format = by_name->format;
		rq->format_given = by_line = true;
	}
	if (!by_line && !(ON_REPORT & ON(cmd->cmd))) {
		rq->format = FORMAT_TEXT;
		rq->format_given = false;
	}
	return 0;
}

/* --app-id, the Dapr CLI's spelling of the app (issue 19), wherever an
 * app is named: the listing's filter of runs and stats (as --app), run's and link's APP_ID in place
 * of the positional, and the app a saved history belongs to. */
static int resolve_app_id(struct cli_values *v, enum audit_command cmd, struct err *e)
{
	struct audit_request *rq = &v->rq;
	if (!*rq->app_id)
		return err_set(e, ERR_USAGE, "--app-id: the app id is empty");
	switch (cmd) {
	case CMD_RUNS:
	case CMD_STATS:
		/* --app-id is one more --app: repeatable filters mean any of them. */
		for (size_t k = 0; k < rq->filters.app.n; k++)
			if (strcmp(rq->filters.app.v[k], rq->app_id) == 0)
				return 0;
		if (rq->filters.app.n == AUDIT_MAX_FILTER_VALUES)
			return err_set(e, ERR_USAGE, "--app-id: at most %d apps", AUDIT_MAX_FILTER_VALUES);
		rq->filters.app.v[rq->filters.app.n++] = rq->app_id;
		return 0;
	case CMD_RUN:
	case CMD_LINK:
		if (rq->args[0] && strcmp(rq->args[0], rq->app_id) != 0)
			return err_set(e, ERR_USAGE, "--app-id %s and APP_ID %s name two apps: give one",
				       rq->app_id, rq->args[0]);
		rq->args[0] = rq->app_id;
		return 0;
	case CMD_FILE:
		rq->file_app_id = rq->app_id;
		return 0;
	default:
		return 0;
	}
}

/* After the command is known: every level's values, then what is
 * resolved from them all. */
static int resolve(struct cli_values *v, const struct line *l, const struct cli_command *cmd, struct config *cfg,
		   struct err *e)
{
	struct audit_request *rq = &v->rq;
	if (check_applies(l, cmd, e) < 0 || given_twice(l, e) < 0 || apply_config(v, l->config, cfg, e) < 0 ||
	    apply_env(v, e) < 0)
		return -1;
	for (size_t i = 0; i < l->n_settings; i++) {
		const struct setting *s = &l->settings[i];
		if (set_option(v, s->opt, s->value, LEVEL_LINE, s->spelling, e) < 0)
			return -1;
	}
	if ((cli_option_by_name("project")->commands & ON(cmd->cmd)) && resolve_project(v, e) < 0)
		return -1;
	if (resolve_format(v, cmd, e) < 0)
		return -1;
	if (rq->app_id && resolve_app_id(v, cmd->cmd, e) < 0)
		return -1;
	if (cmd->cmd == CMD_LINK && rq->no_check && !rq->args[0])
		return err_set(e, ERR_USAGE,
			       "link %s --no-check: without the server the app cannot be looked up; give APP_ID "
			       "RUN_ID",
			       rq->args[1]);
	resolve_sign_in_env(rq);
	/* Checked where it is read, so a token pasted with its line break is
	 * said as that, not as a transport that cannot send it. */
	if (rq->env_token && (cli_option_by_name("server")->commands & ON(cmd->cmd)) &&
	    oauth_token_check(rq->env_token, "CATALYST_TOKEN", ERR_USAGE, e) < 0)
		return -1;
	resolve_terminal(rq, cmd->cmd);
	/* The report's clock: SOURCE_DATE_EPOCH (reproducible-builds.org) when
	 * set, so that a report made twice is the same bytes (the tests' goldens). */
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	long long secs = 0;
	char *end = NULL;
	if (epoch && *epoch)
		secs = strtoll(epoch, &end, 10);
	rq->clock = epoch && *epoch && end && !*end && secs >= 0 ? (time_t)secs : time(NULL);
	/* The one threads setting (parallel.h): 1 keeps every step on one
	 * thread; unset, 0 or any other value lets each step decide. */
	const char *threads = getenv("CATALYST_AUDIT_THREADS");
	rq->threads = threads && strcmp(threads, "1") == 0 ? 1 : 0;
	return 0;
}

int cli_parse(int argc, char **argv, struct audit_request *rq, struct config *cfg, struct err *e)
{
	config_init(cfg);
	size_t n = (size_t)(argc > 0 ? argc : 1), most = 1;
	/* A cluster of short options ("-vvv") is several settings in one
	 * element: at most one per byte. */
	for (int i = 0; i < argc; i++)
		most += strlen(argv[i]) + 1;
	struct line l = {.settings = calloc(most, sizeof *l.settings),
			 .positional = calloc(n, sizeof *l.positional)};
	struct cli_values *v = calloc(1, sizeof *v);
	int rc = -1;
	if (!l.settings || !l.positional || !v) {
		audit_request_init(rq);
		err_oom(e);
		goto out;
	}
	audit_request_init(&v->rq);
	read_line(&l, argc, argv, e);
	const struct cli_command *cmd = NULL;
	rc = pick_command(&l, &v->rq, &cmd, e);
	/* cmd is set whenever the command runs; the test is for the static
	 * analyzer, which cannot see that err_set returns -1. */
	if (rc == CLI_ACTION_RUN && (!cmd || resolve(v, &l, cmd, cfg, e) < 0))
		rc = -1;
	*rq = v->rq;
	if (rc == CLI_ACTION_RUN && (rq->files || rq->n_reports)) {
		cfg->kept_args = l.positional; /* rq->files and rq->reports point into it */
		l.positional = NULL;
	}
out:
	free(l.settings);
	free(l.positional);
	free(v);
	return rc;
}
