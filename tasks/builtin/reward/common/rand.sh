# rand.sh: the random stream of a held-out generator, sourced with ". ./rand.sh".
# SEED (from 1 to 2147483646, set by the pristine verifier per run) starts
# it, so the same run gets the same cases on any shell with 64-bit
# arithmetic. rand N sets N to a number from 0 to N-1 (N at most 2^31).
R=$(( (${SEED:?SEED is not set} - 1) % 2147483646 + 1 ))
rand() {
	R=$(( R * 48271 % 2147483647 ))
	N=$(( R * $1 / 2147483647 )) # the high bits: the low ones of this stream are poor
}
rand 2; rand 2; rand 2 # neighbouring seeds start far apart

# pick WORD...: sets W to one of the words.
pick() {
	rand $#
	shift "$N"
	W=$1
}

# fresh_id PREFIX FROM SPAN: sets ID to PREFIX followed by a number from
# FROM to FROM+SPAN-1 that no earlier fresh_id gave.
USED=" "
fresh_id() {
	while :; do
		rand "$3"
		ID="$1$(( $2 + N ))"
		case $USED in
		*" $ID "*) ;;
		*) USED="$USED$ID "; return ;;
		esac
	done
}
