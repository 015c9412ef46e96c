#pragma once
/* The audit pipeline: the CLI fills a request, audit_execute() runs it —
 * source (Catalyst tools or a file) -> event model -> analysis -> renderer —
 * so no command grows its own copy of it. */

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "analysis.h"
#include "err.h"
#include "file_out.h"
#include "project.h"
#include "render.h"
#include "report.h"

enum audit_command {
	CMD_NONE = 0,
	CMD_RUN,
	CMD_RUNS,
	CMD_FILE,
	CMD_LINK,
	CMD_LOGIN,
	CMD_LOGOUT,
	CMD_WHOAMI,
	CMD_TOOLS,
	CMD_STATS,
	CMD_REVIEW,
};

enum fail_on {
	FAIL_ON_SUSPECT = 0, /* default */
	FAIL_ON_REEXECUTED,  /* any finding */
	FAIL_ON_NEVER,
};

enum color_mode {
	COLOR_AUTO = 0, /* the CLI resolves it to one of the others; the library takes it as never */
	COLOR_ALWAYS,
	COLOR_NEVER,
};

/* How many times one repeatable filter may be given. */
#define AUDIT_MAX_FILTER_VALUES 32

/* A repeatable filter: each value as given (one may hold several,
 * comma-separated); a run matches any of them. */
struct audit_values {
	const char *v[AUDIT_MAX_FILTER_VALUES];
	size_t n;
};

struct audit_filters {
	struct audit_values app;      /* exact: app ids tell case */
	struct audit_values workflow; /* any case */
	struct audit_values status;
	const char *since; /* duration ("24h") or RFC 3339, as given */
	const char *until;
	const char *ended_since; /* --ended-since: ended at or after, as given */
	const char *state;       /* --state FILE: the checkpoint of a job that audits each finished run once */
	long limit;              /* 0: no limit */
};

struct audit_request {
	enum audit_command command;
	/* the command's function, from the CLI's command table */
	int (*run)(const struct audit_request *rq, struct err *e);
	/* run, link: APP_ID (NULL: found through the run list) and RUN_ID;
	 * file: PATH in args[0]. */
	const char *args[2];
	/* stats: the saved reports (files or folders) to read instead of the
	 * server; n_reports 0: the server */
	const char *const *reports;
	size_t n_reports;
	bool stats_by_version; /* stats --by-version */
	/* connection */
	const char *server;    /* --server / CATALYST_MCP_URL / default */
	const char *stdio_cmd; /* --stdio: talk to a local server instead */
	const char *cacert;
	long timeout_s; /* --timeout; 0: 60 */
	int jobs;       /* --jobs; 0: 8 */
	/* CATALYST_AUDIT_THREADS, for each step that can use a second core
	 * (parallel.h): 0 decides by the machine, 1 keeps every step on one */
	unsigned threads;
	bool verbose;
	bool quiet; /* -q/--quiet: main gives no warn, notice or progress sink */
	/* sign-in */
	const char *client_id;
	/* --client-metadata-url; default the build's (CATALYST_CLIENT_METADATA_URL), "" none */
	const char *client_metadata_url;
	const char *redirect_path;
	bool no_browser;
	bool no_login;
	/* From the terminal and the environment, resolved once by the CLI:
	 * library code reads neither. */
	bool may_prompt;      /* standard input is a terminal and CI is unset: a sign-in may wait for the user */
	bool ci;              /* CI is set (not empty): why may_prompt is false, for login's message */
	long login_timeout_s; /* CATALYST_LOGIN_TIMEOUT: how long the sign-in listener waits; 0: OAuth's own */
	/* the environment, read by the CLI alone (library code reads none) */
	const char *env_token; /* CATALYST_TOKEN; NULL when unset or empty */
	const char *browser;   /* $BROWSER, for sign-in and --web; NULL when unset */
	const char *token_dir; /* the token store: oauth_store_default_dir of
				* $XDG_CONFIG_HOME and $HOME; NULL when neither is usable */
	/* project and console */
	struct project_ref project; /* --project NAME / --project-id UID (env, config), else PROJECT_REF_DEFAULT */
	const char *console;        /* --console URL */
	bool web;                   /* --web: open the run's console link with $BROWSER */
	bool no_check;              /* link --no-check: no server asked whether the run exists */
	/* analysis */
	enum data_sharing_level sharing; /* --data-sharing, UNKNOWN when not given */
	size_t payload_limit;
	bool no_children;
	struct audit_filters filters;
	/* output */
	enum render_format format; /* as resolved by the CLI; FORMAT_TEXT unless asked */
	bool format_given; /* asked for: -o/--output/--format/--json, --output-file's name, the config file */
	const char *output_file; /* --output-file PATH, NULL: stdout */
	enum color_mode color;   /* resolved by the CLI (NO_COLOR, TERM=dumb, whether the output is a terminal) */
	enum fail_on fail_on;
	/* What the report options set as they are (--verbose-report,
	 * --findings-only, --all-runs, --local-time, --show-payloads):
	 * their rows write here, and audit_render_options adds what the
	 * format and the terminal decide (colour, width, threads). A new
	 * render option is its row, its field and the renderer that reads it. */
	struct render_options render;
	/* run --follow (issue 30): read the run again until it ends, at most
	 * follow_interval_s apart (0: 5), for at most follow_for_s (0: no
	 * bound); stop, when set, is raised by SIGINT or SIGTERM (main.c). */
	bool follow;
	int follow_interval_s;
	long follow_for_s;
	const volatile sig_atomic_t *stop;
	bool live;          /* standard output is a terminal: the text follow keeps a status line current */
	bool no_pager;      /* --no-pager */
	bool no_color;      /* --no-color: --color never, resolved by the CLI */
	const char *app_id; /* --app-id: the CLI puts it where the command names an app */
	/* The pager for a text or Markdown report on a terminal, as the CLI
	 * resolved it (CATALYST_PAGER, PAGER, less; never piped, never for
	 * JSON, --output or --no-pager): NULL for none. Used when the report
	 * is taller than screen_rows. */
	const char *pager;
	int screen_rows;
	const char *baseline;       /* --baseline FILE: an earlier report whose findings are known */
	time_t clock;               /* the report's generated_at: SOURCE_DATE_EPOCH, else now (the CLI's) */
	const char *save_histories; /* run, runs --save-histories DIR */
	/* file: the paths (files or folders), and the run a single saved
	 * history is of (--app-id, --run-id); review: the source paths */
	const char *const *files;
	size_t n_files;
	const char *file_app_id;
	const char *file_run_id;
	/* run, runs, file --source PATH: the activity code whose hazards each
	 * finding is joined to (review.h); NULL: none */
	const char *source;
	/* where messages go (stderr normally, through the CLI's one printer,
	 * which neutralises outside text); the library only writes there
	 * through these callbacks. */
	void (*warn)(const char *msg, void *ctx);
	void (*notice)(const char *msg, void *ctx);    /* login/logout news, the sign-in address */
	void (*progress)(const char *line, void *ctx); /* NULL when not a TTY */
	void *msg_ctx;
};

void audit_request_init(struct audit_request *rq);

/* Runs the request. Returns the exit status (0 or 1 by findings; 1 also
 * when a run of `runs` failed) or -1 with `e` set (its code is the status). */
int audit_execute(const struct audit_request *rq, struct err *e);

/* The commands behind audit_execute, one per source, each in its own file. */
int audit_file(const struct audit_request *rq, struct err *e);   /* audit_file.c */
int audit_tools(const struct audit_request *rq, struct err *e);  /* audit_tools.c */
int audit_run(const struct audit_request *rq, struct err *e);    /* audit_run.c */
int audit_runs(const struct audit_request *rq, struct err *e);   /* audit_runs.c */
int audit_link(const struct audit_request *rq, struct err *e);   /* audit_link.c */
int audit_whoami(const struct audit_request *rq, struct err *e); /* audit_whoami.c */
int audit_login(const struct audit_request *rq, struct err *e);  /* audit_login.c */
int audit_logout(const struct audit_request *rq, struct err *e); /* audit_login.c */
int audit_stats(const struct audit_request *rq, struct err *e);  /* audit_stats.c */
int audit_review(const struct audit_request *rq, struct err *e); /* audit_review.c */

/* What `__complete` (the shell completions) asks the server for. */
enum audit_complete_what {
	AUDIT_COMPLETE_PROJECTS = 0, /* the projects the signed-in user sees, "uid N" described */
	AUDIT_COMPLETE_APPS,         /* the apps of rq->project */
	AUDIT_COMPLETE_RUNS,         /* the latest runs of an app, their status and start described */
};
#define AUDIT_COMPLETE_MAX_RUNS 20
#define AUDIT_COMPLETE_MAX_BYTES (256 * 1024)
/* The candidates, one line each, "VALUE" or "VALUE<TAB>DESCRIPTION", in
 * *out (malloc'd): server text with no control character in a value (such
 * a value is left out) nor in a description (each is a space). Only the
 * read-only list tools are called, over audit_session_open(rq): the caller
 * sets rq's timeout and no_login. (audit_complete.c) */
int audit_complete(const struct audit_request *rq, enum audit_complete_what what, const char *app, char **out,
		   struct err *e);

/* Messages to the user, through rq->warn and rq->notice (nothing when they
 * are NULL): the library's only way to the terminal. */
void audit_warnf(const struct audit_request *rq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void audit_notef(const struct audit_request *rq, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Builds the OAuth config the server commands use (audit_login.c):
 * scope OAUTH_DEFAULT_SCOPE; interactive unless --no-login or the request
 * says no one can answer a prompt (stdin not a TTY, or CI set); the token
 * folder, CATALYST_TOKEN and $BROWSER as the CLI resolved them
 * (rq->token_dir, env_token, browser); notices through rq->warn's stream;
 * hint names the login command for this server. `hint_buf` holds the hint
 * text. */
struct oauth_config;
void oauth_config_from_request(struct oauth_config *c, const struct audit_request *rq, char *hint_buf,
			       size_t hint_len);

/* Where a run's console link comes from. A saved file: no server vouches
 * for anything, so a project whose form is unknown (shown, with that said)
 * or none gives no link, the ids the file lacks are named as its own, and
 * a bad --console is a usage error. The server: the project as far as the
 * server resolved it; a bare number it could not resolve goes out of the
 * link (and the report), `unresolved` saying why. */
enum link_source {
	LINK_FROM_FILE = 0,
	LINK_FROM_SERVER,
};

/* The report's console link and link note for rr (its app_id and run_id
 * set), and the project it names (doc/PRODUCT.md rule 3), for both sources.
 * note goes beside a link; unvouched, when set, is why there is none: the
 * server did not confirm the project (issue 28). -1 only for what the file
 * source calls an error. (audit_run_link.c) */
int link_for_run(struct report_run *rr, enum link_source from, const char *console,
		 const struct project_ref *project, const char *note, const char *unvouched, struct err *e);

/* The render options of rq, for every command that renders (one place:
 * issue 29 found `stats --color` accepted and dropped by a hand-built
 * copy). */
struct render_options audit_render_options(const struct audit_request *rq);
/* How rq's histories are parsed, from the server or from files: one place
 * too, so the two paths cannot read --threads or --show-payloads apart. */
struct event_parse_options audit_parse_options(const struct audit_request *rq);

/* Shared tail of every auditing command: render the report to --output-file or
 * stdout in the requested format and turn findings into the exit status. */
int audit_emit_report(const struct audit_request *rq, struct report *r, struct err *e);
/* Its two ends, for a report written another way (the streamed `runs`
 * report): where it goes (--output-file through file_out, or stdout), and
 * closing that with rc (0 or -1 from the writing) turned into the exit
 * status: -1 on a write error (an --output-file is then left as it was),
 * else what --fail-on makes of the counts (findings the --baseline report
 * holds do not count). */
FILE *audit_open_output(const struct audit_request *rq, struct file_out *fo, struct err *e);
int audit_close_output(const struct audit_request *rq, struct file_out *fo, int rc, const struct report *counts,
		       struct err *e);
/* The report's meta (report.h) from the request: the clock, the version,
 * the command and project. */
void audit_report_meta(const struct audit_request *rq, struct report *r);
/* --baseline: the finding ids of an earlier JSON or JSON Lines report, as
 * an object whose keys are the ids (NULL without --baseline, or with e
 * set: ERR_USAGE for a file that cannot be read or is no report). */
struct json_t *audit_load_baseline(const struct audit_request *rq, struct err *e);
/* The largest --baseline file read (runs' and review's alike). */
#define BASELINE_MAX_BYTES ((size_t)1 << 30)
/* --source PATH: the code reviewed (review.h), NULL with e set when it
 * cannot be read; audit_free_source frees it (NULL too). */
struct review *audit_load_source(const struct audit_request *rq, struct err *e);
void audit_free_source(struct review *rv);
/* Closes the output of a command that writes no report (link, whoami,
 * tools) after rc (0, or -1 when writing failed): 0, or -1 on a write
 * error. */
int audit_close_plain(struct file_out *fo, int rc, struct err *e);
