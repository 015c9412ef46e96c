#include "data_sharing.h"

#include <string.h>
#include <strings.h>

const char *data_sharing_level_name(enum data_sharing_level l)
{
	switch (l) {
	case SHARING_METADATA:
		return "metadata";
	case SHARING_FULL:
		return "full";
	case SHARING_UNKNOWN:
		break;
	}
	return "unknown";
}

enum data_sharing_level data_sharing_level_parse(const char *value)
{
	static const char enum_prefix[] = "DATA_SHARING_LEVEL_";
	if (!value)
		return SHARING_UNKNOWN;
	if (strncasecmp(value, enum_prefix, sizeof enum_prefix - 1) == 0)
		value += sizeof enum_prefix - 1;
	if (strcasecmp(value, "metadata") == 0)
		return SHARING_METADATA;
	if (strcasecmp(value, "full") == 0)
		return SHARING_FULL;
	return SHARING_UNKNOWN;
}

enum data_sharing_level data_sharing_level_in_text(const char *text)
{
	const char *p = text ? strcasestr(text, "sharing level") : NULL;
	if (!p)
		return SHARING_UNKNOWN;
	p += strlen("sharing level");
	for (;;) {
		if (*p == ' ' || *p == ':' || *p == '\'' || *p == '"' || *p == '`' || *p == '=' || *p == '(')
			p++;
		else if (strncasecmp(p, "is ", 3) == 0)
			p += 3;
		else
			break;
	}
	/* The word that follows, whatever ends it ("metadata.", "full)"). */
	if (strncasecmp(p, "metadata", 8) == 0)
		return SHARING_METADATA;
	if (strncasecmp(p, "full", 4) == 0)
		return SHARING_FULL;
	return SHARING_UNKNOWN;
}
