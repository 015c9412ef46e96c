#!/usr/bin/env zsh
# Runs zsh's real completion system on a command line and prints what it
# would offer, one candidate per line ("VALUE -- DESCRIPTION" where it has
# one): an interactive zsh in a pseudo-terminal (zsh/zpty) with compinit
# and FPATH_DIR first in fpath, the line typed and TAB pressed; compadd is
# wrapped to print each match as it is added. After the idea of Valodim's
# zsh-capture-completion. For tests/test_complete.c.
#   zsh -f zsh-capture.zsh FPATH_DIR 'catalyst-audit --project '
zmodload zsh/zpty || exit 2
fdir=$1 line=$2
zpty z zsh -f -i || exit 2
# The child's set-up, read from a file so the terminal echoes none of it.
setup=$(mktemp) || exit 2
cat >$setup <<SETUP
PROMPT=
fpath=(${(q)fdir} \$fpath)
autoload -U compinit
compinit -u -d ${(q)setup}.dump
bindkey '^I' complete-word
null-line() { echo -E - \$'\\0' }
compprefuncs=(null-line)
comppostfuncs=(null-line exit)
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
zstyle ':completion:*' list-separator ''
compadd() {
	# only the calls that add matches (not -O/-A/-D, which just ask)
	if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\\ * ]]; then
		builtin compadd "\$@"
		return \$?
	fi
	local -a __hits __dscr
	if (( \$@[(I)-d] )); then
		local __tmp=\${@[\$[\${@[(i)-d]}+1]]}
		if [[ \$__tmp == \\(* ]]; then
			eval "__dscr=\$__tmp"
		else
			__dscr=("\${(@P)__tmp}")
		fi
	fi
	builtin compadd -A __hits -D __dscr "\$@"
	local i
	for i in {1..\$#__hits}; do
		if (( \$#__dscr >= i )) && [[ \$__dscr[i] != \$__hits[i] ]]; then
			echo -E - "\$__hits[i] -- \${\${__dscr[i]}##\$__hits[i] #(-- |)}"
		else
			echo -E - "\$__hits[i]"
		fi
	done
}
echo ready
SETUP
zpty -w z "source ${(q)setup}"
local out
repeat 50; do
	zpty -r z out || break
	[[ $out == ready* ]] && break
done
zpty -w -n z "$line"$'\t'
integer tog=0
local rc=2
while zpty -r z out; do
	for l in "${(@f)out}"; do
		l=${l%$'\r'}
		if [[ $l == *$'\0'* ]]; then
			(( tog++ )) && { rc=0; break 2 }
			continue
		fi
		(( tog )) && [[ -n $l ]] && print -r -- "$l"
	done
done
zpty -d z
rm -f $setup $setup.dump
exit $rc
