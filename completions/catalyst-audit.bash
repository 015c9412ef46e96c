# bash completion for catalyst-audit                       -*- shell-script -*-
# Installed into $datadir/bash-completion/completions/catalyst-audit.
# The options of each command follow `catalyst-audit COMMAND --help`
# (tests/test_install.c checks that they agree).

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

	local commands="run runs file link login logout whoami tools help"
	local connect="--server --stdio --cacert --timeout"
	local signin="--client-id --redirect-path --no-browser --no-login"
	local project="--project --project-id --console"
	local report="--format -o --json --output --color --fail-on --verbose-report --full --findings-only --all-runs --data-sharing --payload-limit"
	local filters="--app --workflow --status --since --until --limit"
	local general="--config --verbose -v --version --help -h"

	case $prev in
	--format|-o)
		COMPREPLY=($(compgen -W "text json jsonl markdown" -- "$cur"))
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
	--cacert|--output|--config)
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
		--server|--stdio|--cacert|--timeout|--jobs|--project|--project-id|--console|--format|-o|\
		--output|--color|--fail-on|--data-sharing|--payload-limit|--app|--workflow|--status|\
		--since|--until|--limit|--client-id|--redirect-path|--config)
			((i++)) ;;
		-*) ;;
		*) cmd=${words[i]}; break ;;
		esac
	done

	local opts
	case $cmd in
	run) opts="$connect --jobs $project --web $report --no-children $signin $general" ;;
	runs) opts="$connect --jobs $project $report --no-children $filters $signin $general" ;;
	file) opts="$project $report $general" ;;
	link) opts="$connect $project --web --no-check --format -o --json --output $signin $general" ;;
	login) opts="--server --cacert --timeout $signin $general" ;;
	logout) opts="--server --client-id $general" ;;
	whoami) opts="$connect --format -o --json --output --data-sharing $signin $general" ;;
	tools) opts="$connect --format -o --json --output $signin $general" ;;
	help) opts="" ;;
	*) opts="$connect --jobs $project $report --no-children $filters $signin $general" ;;
	esac

	if [[ $cmd == help && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return
	fi
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
