#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_options.h"
#include "data_sharing.h"
#include "project.h"
#include "oauth.h"
#include "suggest.h"

/* ---- values ---------------------------------------------------------- */

/* label names where a value came from in messages: "--timeout",
 * "CATALYST_PROJECT", "/home/u/.config/catalyst-audit/config:3: timeout". */
static int parse_long(const char *label, const char *s, long min, long max, long *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return err_set(e, ERR_USAGE, "%s: expected a whole number from %ld to %ld, got '%s'", label, min,
			       max, s);
	*out = v;
	return 0;
}

static int parse_choice(const char *label, const char *s, const char *const *names, int n, struct err *e)
{
	for (int i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	char list[256] = "";
	for (int i = 0; i < n; i++) {
		strncat(list, names[i], sizeof list - strlen(list) - 1);
		if (i + 1 < n)
			strncat(list, "|", sizeof list - strlen(list) - 1);
	}
	return err_set(e, ERR_USAGE, "%s: expected %s, got '%s'", label, list, s);
}

static const struct {
	const char *name;
	enum render_format format;
	const char *extension; /* --output FILE with it picks the format */
} formats[] = {
	{"text", FORMAT_TEXT, NULL},
	{"json", FORMAT_JSON, ".json"},
	{"jsonl", FORMAT_JSONL, ".jsonl"},
	{"markdown", FORMAT_MARKDOWN, ".md"},
};
#define N_FORMATS (sizeof formats / sizeof *formats)

static int parse_format(const char *label, const char *s, enum render_format *f, struct err *e)
{
	const char *names[N_FORMATS];
	for (size_t i = 0; i < N_FORMATS; i++)
		names[i] = formats[i].name;
	int r = parse_choice(label, s, names, (int)N_FORMATS, e);
	if (r < 0)
		return -1;
	*f = formats[r].format;
	return 0;
}

/* The format a file name asks for by its extension (any case). */
static bool format_of_path(const char *path, enum render_format *f)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < N_FORMATS; i++) {
		const char *x = formats[i].extension;
		if (x && n > strlen(x) && strcasecmp(path + n - strlen(x), x) == 0) {
			*f = formats[i].format;
			return true;
		}
	}
	return false;
}

/* ---- resolving the three sources --------------------------------------- */

enum level {
	LEVEL_CONFIG = 0,
	LEVEL_ENV,
	LEVEL_LINE,
	LEVEL_COUNT,
};

struct resolve {
	struct audit_request *rq;
	/* The project, per level: one of either kind at a higher level wins
	 * over both kinds at a lower one. */
	const char *project[LEVEL_COUNT], *project_id[LEVEL_COUNT];
	char project_label[LEVEL_COUNT][300], project_id_label[LEVEL_COUNT][300];
	/* The format asked for on the command line, and by which spelling. */
	bool line_format_set;
	enum render_format line_format;
	char line_format_label[16];
};

static int apply(struct resolve *st, const struct cli_option *o, const char *value, enum level lv,
		 const char *label, struct err *e)
{
	static const char *const colors[] = {"auto", "always", "never"};
	static const char *const fails[] = {"suspect", "reexecuted", "never"};
	struct audit_request *rq = st->rq;
	long v = 0;
	int r;
	enum render_format f;
	switch (o->val) {
	case 'v':
		rq->verbose = true;
		break;
	case OPT_SERVER:
		rq->server = value;
		break;
	case OPT_STDIO:
		rq->stdio_cmd = value;
		break;
	case OPT_CACERT:
		rq->cacert = value;
		break;
	case OPT_TIMEOUT:
		if (parse_long(label, value, 1, 86400, &v, e) < 0)
			return -1;
		rq->timeout_s = v;
		break;
	case OPT_JOBS:
		if (parse_long(label, value, 1, 64, &v, e) < 0)
			return -1;
		rq->jobs = (int)v;
		break;
	case OPT_PROJECT:
		if (!*value)
			return err_set(e, ERR_USAGE, "%s: the project name is empty", label);
		st->project[lv] = value;
		snprintf(st->project_label[lv], sizeof st->project_label[lv], "%s", label);
		break;
	case OPT_PROJECT_ID:
		if (!project_is_uid(value))
			return err_set(e, ERR_USAGE,
				       "%s: expected a numeric project uid (165 or prj-165), got '%s'", label,
				       value);
		st->project_id[lv] = value;
		snprintf(st->project_id_label[lv], sizeof st->project_id_label[lv], "%s", label);
		break;
	case OPT_CONSOLE:
		rq->console = value;
		break;
	case OPT_FORMAT:
	case OPT_JSON:
		if (o->val == OPT_JSON)
			f = FORMAT_JSON;
		else if (parse_format(label, value, &f, e) < 0)
			return -1;
		if (lv == LEVEL_LINE) {
			if (st->line_format_set && st->line_format != f)
				return err_set(e, ERR_USAGE, "%s and %s ask for two different formats: give one",
					       st->line_format_label, label);
			st->line_format_set = true;
			st->line_format = f;
			snprintf(st->line_format_label, sizeof st->line_format_label, "%s", label);
		}
		rq->format = f;
		rq->format_given = true;
		break;
	case OPT_OUTPUT:
		rq->output = value;
		break;
	case OPT_COLOR:
		if ((r = parse_choice(label, value, colors, 3, e)) < 0)
			return -1;
		rq->color = (enum color_mode)r;
		break;
	case OPT_FAIL_ON:
		if ((r = parse_choice(label, value, fails, 3, e)) < 0)
			return -1;
		rq->fail_on = (enum fail_on)r;
		break;
	case OPT_VERBOSE_REPORT:
	case OPT_FINDINGS_ONLY: {
		enum report_view want = o->val == OPT_VERBOSE_REPORT ? REPORT_FULL : REPORT_FINDINGS;
		if (rq->view != REPORT_SHORT && rq->view != want)
			return err_set(e, ERR_USAGE,
				       "--verbose-report and --findings-only ask for two views: give one");
		if (want == REPORT_FINDINGS && rq->all_runs)
			return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
		rq->view = want;
		break;
	}
	case OPT_ALL_RUNS:
		if (rq->view == REPORT_FINDINGS)
			return err_set(e, ERR_USAGE, "--all-runs and --findings-only ask for two views: give one");
		rq->all_runs = true;
		break;
	case OPT_DATA_SHARING: {
		/* The levels' own names, exactly, like every other choice here. */
		const char *const levels[] = {data_sharing_level_name(SHARING_METADATA),
					      data_sharing_level_name(SHARING_FULL)};
		if (parse_choice(label, value, levels, 2, e) < 0)
			return -1;
		rq->sharing = data_sharing_level_parse(value);
		break;
	}
	case OPT_PAYLOAD_LIMIT:
		if (parse_long(label, value, 1, 1L << 40, &v, e) < 0)
			return -1;
		rq->payload_limit = (size_t)v;
		break;
	case OPT_NO_CHILDREN:
		rq->no_children = true;
		break;
	case OPT_APP:
		rq->filters.app = value;
		break;
	case OPT_WORKFLOW:
		rq->filters.workflow = value;
		break;
	case OPT_STATUS:
		rq->filters.status = value;
		break;
	case OPT_SINCE:
		rq->filters.since = value;
		break;
	case OPT_UNTIL:
		rq->filters.until = value;
		break;
	case OPT_LIMIT:
		if (parse_long(label, value, 1, 1000000, &v, e) < 0)
			return -1;
		rq->filters.limit = v;
		break;
	case OPT_CLIENT_ID:
		rq->client_id = value;
		break;
	case OPT_REDIRECT_PATH:
		rq->redirect_path = value;
		break;
	case OPT_NO_BROWSER:
		rq->no_browser = true;
		break;
	case OPT_NO_LOGIN:
		rq->no_login = true;
		break;
	case OPT_WEB:
		rq->web = true;
		break;
	case OPT_NO_CHECK:
		rq->no_check = true;
		break;
	default: /* --config, --help, --version: read before values are applied */
		break;
	}
	return 0;
}

/* The highest level that names a project decides; both kinds at that
 * level name one project two ways. */
static int resolve_project(struct resolve *st, struct err *e)
{
	for (int lv = LEVEL_LINE; lv >= LEVEL_CONFIG; lv--) {
		if (!st->project[lv] && !st->project_id[lv])
			continue;
		if (st->project[lv] && st->project_id[lv])
			return err_set(e, ERR_USAGE, "%s and %s name one project two ways: give one",
				       st->project_label[lv], st->project_id_label[lv]);
		return project_ref_from_options(st->project[lv], st->project_id[lv], &st->rq->project, e);
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

static int apply_config(struct resolve *st, const char *line_config, struct config *cfg, struct err *e)
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
		if (apply(st, cli_option_by_name(en->key), en->value, LEVEL_CONFIG, label, e) < 0)
			return -1;
	}
	return 0;
}

static int apply_env(struct resolve *st, struct err *e)
{
	static const struct {
		const char *var;
		int val;
	} vars[] = {
		{"CATALYST_MCP_URL", OPT_SERVER},
		{"CATALYST_PROJECT", OPT_PROJECT},
		{"CATALYST_PROJECT_ID", OPT_PROJECT_ID},
	};
	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i].var);
		/* Set but empty is unset: `CATALYST_PROJECT= catalyst-audit ...`. */
		if (v && *v && apply(st, cli_option_by_val(vars[i].val), v, LEVEL_ENV, vars[i].var, e) < 0)
			return -1;
	}
	return 0;
}

/* Whether the report goes to a terminal: stdout, or an --output path
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
static void resolve_terminal(struct audit_request *rq, enum audit_command cmd)
{
	const char *no_color = getenv("NO_COLOR");
	if (no_color && *no_color && rq->color == COLOR_AUTO)
		rq->color = COLOR_NEVER;
	if (rq->color == COLOR_AUTO && (cli_option_by_val(OPT_COLOR)->commands & ON(cmd))) {
		const char *term = getenv("TERM");
		bool dumb = term && strcmp(term, "dumb") == 0;
		rq->color = !dumb && output_is_terminal(rq->output) ? COLOR_ALWAYS : COLOR_NEVER;
	}
	/* A script or CI job must never sit waiting for a browser. */
	const char *ci = getenv("CI");
	rq->may_prompt = isatty(STDIN_FILENO) && !(ci && *ci);
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
	const char *near = suggest_nearest(word, names, cli_n_commands);
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

int cli_parse(int argc, char **argv, struct audit_request *rq, struct config *cfg, struct err *e)
{
	struct option longopts[CLI_MAX_OPTIONS + 1];
	for (size_t i = 0; i < cli_n_options; i++)
		longopts[i] =
			(struct option){cli_options[i].name, cli_options[i].has_arg, NULL, cli_options[i].val};
	longopts[cli_n_options] = (struct option){0, 0, 0, 0};

	audit_request_init(rq);
	config_init(cfg);
	struct setting *line = calloc((size_t)(argc > 0 ? argc : 1), sizeof *line);
	char **positional = calloc((size_t)(argc > 0 ? argc : 1), sizeof *positional);
	struct resolve *st = calloc(1, sizeof *st);
	if (!line || !positional || !st) {
		free(line);
		free(positional);
		free(st);
		return err_set(e, ERR_INTERNAL, "out of memory");
	}
	st->rq = rq;
	int rc = -1;
	size_t n_line = 0, n_positional = 0;
	bool help = false, version = false, failed = false;
	const char *line_config = NULL;

	/* "+" stops at the command word and the loop goes on past it: options
	 * may come before or after it (`catalyst-audit runs --status failed`).
	 * ":" tells a missing value from an unknown option. The first error is
	 * kept and parsing goes on, so that --help anywhere still helps. */
	optind = 0;
	opterr = 0;
	while (1) {
		/* The element this call reads (an option's separate value is the
		 * next one; getopt_long moves optind past a cluster of short
		 * options only when it is done with it). */
		int at = optind ? optind : 1;
		if (at < argc && strcmp(argv[at], "--") == 0) {
			for (int k = at + 1; k < argc; k++)
				positional[n_positional++] = argv[k];
			break;
		}
		int idx = -1;
		int c = getopt_long(argc, argv, "+:vho:", longopts, &idx);
		if (c == -1) {
			if (optind >= argc)
				break;
			positional[n_positional++] = argv[optind++];
			continue;
		}
		if (c == '?') {
			const struct cli_option *no_value =
				optopt && strncmp(argv[at], "--", 2) == 0 ? cli_option_by_val(optopt) : NULL;
			if (!failed && no_value) {
				/* --json=x: a value for an option that takes none */
				err_set(e, ERR_USAGE, "--%s takes no value", no_value->name);
			} else if (!failed && optopt) {
				/* -status: a long option with one dash */
				const char *el = argv[at];
				char word[SUGGEST_MAX_LEN + 1];
				const char *near = strlen(el) > 2 && el[1] != '-'
							   ? nearest_option(option_word(el, word, sizeof word))
							   : NULL;
				if (near)
					err_set(e, ERR_USAGE, "unknown option -%c (in %.40s); did you mean --%s?",
						optopt, el, near);
				else
					err_set(e, ERR_USAGE, "unknown option -%c (see catalyst-audit --help)",
						optopt);
			} else if (!failed) {
				unknown_option(argv[at], e);
			}
			failed = true;
			continue;
		}
		const struct cli_option *o = idx >= 0 ? &cli_options[idx] : cli_option_by_short(c);
		if (c == ':') {
			o = cli_option_by_val(optopt) ? cli_option_by_val(optopt) : cli_option_by_short(optopt);
			if (!failed && o)
				err_set(e, ERR_USAGE, "--%s needs a value (%s)", o->name, o->metavar);
			failed = true;
			continue;
		}
		if (!o)
			continue;
		struct setting *s = &line[n_line];
		if (idx >= 0) {
			if (!spelled_whole(argv[at], o->name)) {
				if (!failed)
					unknown_option(argv[at], e);
				failed = true;
				continue;
			}
			snprintf(s->spelling, sizeof s->spelling, "--%s", o->name);
		} else {
			snprintf(s->spelling, sizeof s->spelling, "-%c", o->short_name);
			enum render_format f;
			/* -output is -o with the value "utput": say what was meant. */
			if (c == 'o' && optarg != argv[optind - 1] && parse_format("-o", optarg, &f, NULL) < 0) {
				char word[SUGGEST_MAX_LEN + 1];
				const char *el = argv[at];
				const char *near = nearest_option(option_word(el, word, sizeof word));
				if (near && strlen(el) > 3) {
					if (!failed)
						err_set(e, ERR_USAGE, "unknown option %.40s; did you mean --%s?",
							el, near);
					failed = true;
					continue;
				}
			}
		}
		if (c == 'h') {
			help = true;
		} else if (c == OPT_VERSION) {
			version = true;
		} else {
			if (c == OPT_CONFIG)
				line_config = optarg;
			s->opt = o;
			s->value = optarg;
			n_line++;
		}
	}

	/* The command, and what help was asked for: help is given even
	 * after a mistake in the options, but never for a command that does
	 * not exist. */
	const struct cli_command *cmd = n_positional > 0 ? cli_command_by_name(positional[0]) : NULL;
	size_t first_arg = 1;
	if (cmd && cmd->cmd == CMD_NONE) { /* help [COMMAND] */
		help = true;
		cmd = NULL;
		if (n_positional > 2) {
			err_set(e, ERR_USAGE, "help takes one command, e.g. catalyst-audit help runs");
			goto out;
		}
		if (n_positional == 2 && !(cmd = cli_command_by_name(positional[1]))) {
			unknown_command(positional[1], e);
			goto out;
		}
		first_arg = 2;
	}
	if (help && n_positional > 0 && !cmd && first_arg == 1) {
		unknown_command(positional[0], e);
		goto out;
	}
	if (help) {
		rq->command = cmd ? cmd->cmd : CMD_NONE;
		rc = CLI_ACTION_HELP;
		goto out;
	}
	if (version) {
		rc = CLI_ACTION_VERSION;
		goto out;
	}
	if (failed)
		goto out;
	if (n_positional == 0) {
		err_set(e, ERR_USAGE, "no command given (see catalyst-audit --help)");
		goto out;
	}
	if (!cmd) {
		unknown_command(positional[0], e);
		goto out;
	}
	size_t nargs = n_positional - first_arg;
	if ((int)nargs < cmd->min_args || (int)nargs > cmd->max_args) {
		err_set(e, ERR_USAGE, "usage: catalyst-audit %s%s%s (see catalyst-audit %s --help)", cmd->name,
			*cmd->args ? " " : "", cmd->args, cmd->name);
		goto out;
	}
	rq->command = cmd->cmd;
	for (size_t k = 0; k < nargs && k < 2; k++)
		rq->args[k] = positional[first_arg + k];
	if ((cmd->cmd == CMD_RUN || cmd->cmd == CMD_LINK) && nargs == 1) {
		/* RUN_ID alone: the app is found through the run list. */
		rq->args[1] = rq->args[0];
		rq->args[0] = NULL;
	}

	/* A filter or option the command would ignore is a mistake to say,
	 * not to pass over: `run --status failed` audits no failed run. */
	for (size_t i = 0; i < n_line; i++) {
		if (line[i].opt->commands & ON(cmd->cmd))
			continue;
		char list[128];
		cli_command_list(line[i].opt->commands, list, sizeof list);
		err_set(e, ERR_USAGE, "%s does not apply to %s (only to %s; see catalyst-audit %s --help)",
			line[i].spelling, cmd->name, list, cmd->name);
		goto out;
	}

	if (apply_config(st, line_config, cfg, e) < 0 || apply_env(st, e) < 0)
		goto out;
	for (size_t i = 0; i < n_line; i++)
		if (apply(st, line[i].opt, line[i].value, LEVEL_LINE, line[i].spelling, e) < 0)
			goto out;
	if (cli_option_by_val(OPT_PROJECT)->commands & ON(cmd->cmd))
		if (resolve_project(st, e) < 0)
			goto out;
	/* --output's name picks the format unless the command line chose one:
	 * it is a command-line choice too, so it beats the config file. */
	enum render_format f;
	if (!st->line_format_set && rq->output && (cli_option_by_val(OPT_FORMAT)->commands & ON(cmd->cmd)) &&
	    format_of_path(rq->output, &f)) {
		rq->format = f;
		rq->format_given = true;
	}
	if (cmd->cmd == CMD_LINK) {
		/* A link is a line or a JSON object, as the command line asks
		 * (--output's name included): another format asked for there is
		 * a mistake; the config file's is a default for reports. */
		if (st->line_format_set && st->line_format != FORMAT_TEXT && st->line_format != FORMAT_JSON) {
			err_set(e, ERR_USAGE, "%s: link prints text or json", st->line_format_label);
			goto out;
		}
		bool json = st->line_format_set ? st->line_format == FORMAT_JSON
						: rq->output && format_of_path(rq->output, &f) && f == FORMAT_JSON;
		rq->format = json ? FORMAT_JSON : FORMAT_TEXT;
		rq->format_given = json;
		if (rq->no_check && !rq->args[0]) {
			err_set(e, ERR_USAGE,
				"link %s --no-check: without the server the app cannot be looked up; give APP_ID "
				"RUN_ID",
				rq->args[1]);
			goto out;
		}
	}
	resolve_sign_in_env(rq);
	resolve_terminal(rq, cmd->cmd);
	/* The one threads setting (parallel.h): 1 keeps every step on one
	 * thread; unset, 0 or any other value lets each step decide. */
	const char *threads = getenv("CATALYST_AUDIT_THREADS");
	rq->threads = threads && strcmp(threads, "1") == 0 ? 1 : 0;
	rc = CLI_ACTION_RUN;
out:
	free(line);
	free(positional);
	free(st);
	return rc;
}
