# bash completion for catalyst-audit                       -*- shell-script -*-
# Installed into $datadir/bash-completion/completions/catalyst-audit.

_catalyst_audit()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
	fi

	local commands="run runs file link login logout whoami tools"
	local opts="--server --stdio --cacert --timeout --jobs --project --project-id --console
		--format --output --color --fail-on --data-sharing --payload-limit --no-children
		--app --workflow --status --since --until --limit --client-id --redirect-path
		--no-browser --no-login --verbose -v --version --help -h"

	case $prev in
	--format)
		COMPREPLY=($(compgen -W "text json markdown" -- "$cur"))
		return ;;
	--color)
		COMPREPLY=($(compgen -W "auto always never" -- "$cur"))
		return ;;
	--fail-on)
		COMPREPLY=($(compgen -W "never reexecuted suspect" -- "$cur"))
		return ;;
	--data-sharing)
		COMPREPLY=($(compgen -W "metadata full" -- "$cur"))
		return ;;
	--status)
		COMPREPLY=($(compgen -W "running completed failed terminated suspended canceled" -- "$cur"))
		return ;;
	--cacert|--output)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--stdio)
		COMPREPLY=($(compgen -c -- "$cur"))
		return ;;
	--server|--timeout|--jobs|--project|--project-id|--console|--payload-limit|--app|--workflow|\
	--since|--until|--limit|--client-id|--redirect-path)
		return ;; # a value of the user's
	esac

	# The command, if one was given already.
	local i cmd=
	for ((i = 1; i < cword; i++)); do
		case ${words[i]} in
		--server|--stdio|--cacert|--timeout|--jobs|--project|--project-id|--console|--format|\
		--output|--color|--fail-on|--data-sharing|--payload-limit|--app|--workflow|--status|\
		--since|--until|--limit|--client-id|--redirect-path)
			((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	if [[ $cur == -* || -n $cmd ]]; then
		if [[ $cmd == file && $cur != -* ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
			return
		fi
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	COMPREPLY=($(compgen -W "$commands" -- "$cur"))
}
complete -F _catalyst_audit catalyst-audit
