#pragma once
/* The organization's data-sharing level as a text names it: the one
 * reading of "metadata" and "full", whether it comes from the command line,
 * a field of a tool answer, a refusal, or a history's own envelope. */

enum data_sharing_level {
	SHARING_UNKNOWN = 0,
	SHARING_METADATA,
	SHARING_FULL,
};

/* "unknown", "metadata", "full". */
const char *data_sharing_level_name(enum data_sharing_level l);

/* A field's value: "metadata" or "full" in any case, or the enum spelling
 * DATA_SHARING_LEVEL_METADATA / DATA_SHARING_LEVEL_FULL. Anything else
 * (NULL, "partial", "fully") is SHARING_UNKNOWN: a level is never guessed. */
enum data_sharing_level data_sharing_level_parse(const char *value);

/* The level a sentence names after "sharing level" ("... at data-sharing
 * level metadata", "data sharing level: 'full'", "sharing level is full"),
 * or SHARING_UNKNOWN. For the prose of a refusal's message. */
enum data_sharing_level data_sharing_level_in_text(const char *text);
