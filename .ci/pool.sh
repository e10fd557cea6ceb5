# shellcheck shell=bash
# The job pool of ./run-tests: jobs run in the background, as many at a time
# as there are slots, the costliest ready one first (longest first is what
# keeps two cores busy to the end; a job others wait for counts their cost
# too); a job may need another to have passed
# (pool_needs) or only to have ended (pool_after). Each job's output goes to
# a log file and is printed whole when the job ends, so that two jobs never
# mix their lines. Source it; run-tests defines the jobs.
#
#   pool_job NAME LAYER COST CMD...   queue a job (CMD: a command or function)
#   pool_needs NAME OTHER             start NAME only once OTHER passed
#   pool_after NAME OTHER             start NAME only once OTHER ended
#   pool_weight NAME N                NAME takes N slots (default 1); a job
#                                     that takes them all runs alone, once
#                                     no lighter job is ready
#   pool_paced NAME                   NAME's cost is its measured time on a
#                                     reference run: the summary's pace line
#                                     compares the two
#   pool_run SLOTS                    run them all
#   pool_record NAME LAYER RC SECS    record a step that ran outside the pool
#   pool_summary WHY_FILE             the table of layers, the pace, the
#                                     host's speed (cpu-probe), then WHY_FILE
#   pool_all_passed                   status 0 when every job passed
#   pool_stop                         kill the running jobs (INT, TERM)
# A job may write one line to "$POOL_LOGS/NAME.note" for the summary.

declare -A POOL_LAYER=() POOL_COST=() POOL_CMD=() POOL_NEEDS=() POOL_AFTER=() POOL_WEIGHT=() POOL_PACED=()
declare -A POOL_STATE=() POOL_T0=() POOL_SECS=() POOL_PID_JOB=() POOL_LAYER_TESTS=() POOL_RANK=()
POOL_ORDER=() POOL_LAYERS=()
POOL_LOGS=${POOL_LOGS:-build/run-tests}
POOL_DIR=$(dirname "${BASH_SOURCE[0]}")
POOL_PROBE_PID=''
POOL_START=$SECONDS
POOL_BUSY=0 POOL_WALL=0 POOL_SLOTS=0

_pool_layer_seen() {
	local l
	for l in "${POOL_LAYERS[@]}"; do [[ $l == "$1" ]] && return 0; done
	POOL_LAYERS+=("$1")
}

pool_job() {
	local name=$1
	[[ -z ${POOL_LAYER[$name]:-} ]] || sbd_die "pool: job $name defined twice"
	POOL_LAYER[$name]=$2 POOL_COST[$name]=$3 POOL_STATE[$name]=queued
	shift 3
	POOL_CMD[$name]=$(printf '%q ' "$@")
	POOL_ORDER+=("$name")
	_pool_layer_seen "${POOL_LAYER[$name]}"
}
pool_needs() { POOL_NEEDS[$1]=$2; }
pool_weight() { POOL_WEIGHT[$1]=$2; }
pool_after() { POOL_AFTER[$1]=$2; }
pool_paced() { POOL_PACED[$1]=1; }

pool_record() {
	local name=$1
	POOL_LAYER[$name]=$2 POOL_SECS[$name]=$4
	if (($3 == 0)); then POOL_STATE[$name]=PASS; else POOL_STATE[$name]="FAIL (status $3)"; fi
	POOL_ORDER+=("$name")
	_pool_layer_seen "$2"
}

_pool_clock() { printf '%02d:%02d' $(((SECONDS - POOL_START) / 60)) $(((SECONDS - POOL_START) % 60)); }

# _pool_ready NAME: 0 ready, 1 not yet, 2 never (what it needs failed)
_pool_ready() {
	local other=${POOL_NEEDS[$1]:-}
	if [[ -n $other ]]; then
		case ${POOL_STATE[$other]:-missing} in
		PASS) ;;
		queued | running) return 1 ;;
		*) return 2 ;;
		esac
	fi
	other=${POOL_AFTER[$1]:-}
	if [[ -n $other ]]; then
		case ${POOL_STATE[$other]:-} in
		queued | running) return 1 ;;
		esac
	fi
	return 0
}

_pool_start() {
	local name=$1
	POOL_T0[$name]=$SECONDS POOL_STATE[$name]=running
	printf '==> %s start %s (%s)\n' "$(_pool_clock)" "$name" "${POOL_LAYER[$name]}"
	rm -f "$POOL_LOGS/$name.note"
	(
		set -e
		eval "${POOL_CMD[$name]}"
	) >"$POOL_LOGS/$name.log" 2>&1 </dev/null &
	POOL_PID_JOB[$!]=$name
}

_pool_end() {
	local name=$1 rc=$2
	POOL_SECS[$name]=$((SECONDS - POOL_T0[$name]))
	POOL_BUSY=$((POOL_BUSY + POOL_SECS[$name] * ${POOL_WEIGHT[$name]:-1}))
	if ((rc == 0)); then POOL_STATE[$name]=PASS; else POOL_STATE[$name]="FAIL (status $rc)"; fi
	printf '\n==> %s %s %s: %s in %ss; its output:\n' "$(_pool_clock)" "${POOL_LAYER[$name]}" "$name" \
		"${POOL_STATE[$name]}" "${POOL_SECS[$name]}"
	cat "$POOL_LOGS/$name.log"
	[[ ! -s $POOL_LOGS/$name.note ]] || printf '==> note: %s\n' "$(head -n 1 "$POOL_LOGS/$name.note")"
	printf '==> end of %s\n\n' "$name"
}

# _pool_rank: a job's rank is its cost plus the highest rank among the jobs
# that wait for it: a short job that a long one needs (the .debs before the
# systemd tests, the debug kernel before its tests) starts early enough.
_pool_rank() {
	local name other changed=1 r
	for name in "${POOL_ORDER[@]}"; do POOL_RANK[$name]=${POOL_COST[$name]:-0}; done
	while ((changed)); do
		changed=0
		for name in "${POOL_ORDER[@]}"; do
			for other in "${POOL_NEEDS[$name]:-}" "${POOL_AFTER[$name]:-}"; do
				[[ -n $other && -n ${POOL_RANK[$other]:-} ]] || continue
				r=$((POOL_COST[$other] + POOL_RANK[$name]))
				((r > POOL_RANK[$other])) || continue
				POOL_RANK[$other]=$r changed=1
			done
		done
	done
}

# _pool_pick FREE: the job to start with FREE slots free, if any: the
# highest-ranked ready job that fits, a lighter one before one that takes
# every slot (that one only starts when nothing runs). Jobs that can never
# be ready are failed on the way.
_pool_pick() {
	local free=$1 name rc w best='' best_full=''
	for name in "${POOL_ORDER[@]}"; do
		[[ ${POOL_STATE[$name]} == queued ]] || continue
		rc=0
		_pool_ready "$name" || rc=$?
		if ((rc == 2)); then
			POOL_STATE[$name]="FAIL (${POOL_NEEDS[$name]} failed)" POOL_SECS[$name]=0
			printf '==> %s %s: not run, %s failed\n' "$(_pool_clock)" "$name" "${POOL_NEEDS[$name]}" >&2
			continue
		fi
		((rc == 0)) || continue
		w=${POOL_WEIGHT[$name]:-1}
		((w <= POOL_SLOTS)) || w=$POOL_SLOTS
		((w <= free)) || continue
		if ((w < POOL_SLOTS)); then
			[[ -z $best ]] || ((POOL_RANK[$name] > POOL_RANK[$best])) && best=$name
		else
			[[ -z $best_full ]] || ((POOL_RANK[$name] > POOL_RANK[$best_full])) && best_full=$name
		fi
	done
	[[ -n $best ]] || best=$best_full
	printf '%s' "$best"
}

pool_run() {
	local used=0 name rc pid t0=$SECONDS w
	POOL_SLOTS=$1
	mkdir -p "$POOL_LOGS"
	_pool_rank
	# The host's own speed, sampled beside the jobs (pool_summary).
	rm -f "$POOL_LOGS/cpu-probe.txt"
	"$POOL_DIR/cpu-probe" sample "$POOL_LOGS/cpu-probe.txt" &
	POOL_PROBE_PID=$!
	# Job control: each job gets a process group of its own (pool_stop).
	set -m
	while :; do
		while ((used < POOL_SLOTS)); do
			_pool_pick $((POOL_SLOTS - used)) >"$POOL_LOGS/.pick"
			name=$(<"$POOL_LOGS/.pick")
			[[ -n $name ]] || break
			w=${POOL_WEIGHT[$name]:-1}
			((w <= POOL_SLOTS)) || w=$POOL_SLOTS
			_pool_start "$name"
			used=$((used + w))
		done
		((used > 0)) || break
		pid='' rc=0
		wait -n -p pid || rc=$?
		[[ -n $pid && -n ${POOL_PID_JOB[$pid]:-} ]] || continue
		name=${POOL_PID_JOB[$pid]}
		unset "POOL_PID_JOB[$pid]"
		_pool_end "$name" "$rc"
		w=${POOL_WEIGHT[$name]:-1}
		((w <= POOL_SLOTS)) || w=$POOL_SLOTS
		used=$((used - w))
	done
	set +m
	kill "$POOL_PROBE_PID" 2>/dev/null || true
	wait "$POOL_PROBE_PID" 2>/dev/null || true
	POOL_PROBE_PID='' # reaped: pool_stop must not kill its pid, reused by then
	POOL_WALL=$((SECONDS - t0))
	for name in "${POOL_ORDER[@]}"; do
		[[ ${POOL_STATE[$name]} != queued ]] || POOL_STATE[$name]="FAIL (never ready)" POOL_SECS[$name]=0
	done
}

pool_stop() {
	local pid
	[[ -z ${POOL_PROBE_PID:-} ]] || kill "$POOL_PROBE_PID" 2>/dev/null || true
	for pid in "${!POOL_PID_JOB[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || true
	done
}

pool_all_passed() {
	local name
	for name in "${POOL_ORDER[@]}"; do
		[[ ${POOL_STATE[$name]} == PASS ]] || return 1
	done
}

# _pool_ratio PERCENT: 137 -> 1.37x
_pool_ratio() { printf '%d.%02dx' $(($1 / 100)) $(($1 % 100)); }

# pool_pace: how fast this machine ran today. The same job's time differs
# between runs by more than any change of the suite (tests/README.md: the
# host's other guests), so the summary gives the paced jobs' time over
# their reference (their costs, added up), in all and per layer, and the
# job furthest out of line each way: a slow run is then seen as slow
# across the board, a regression as one job out of line. The run's time
# over its pace is what it would take at the reference's speed.
pool_pace() {
	local name layer r secs=0 cost=0 slowest='' fastest=''
	local -A per_secs=() per_cost=()
	for name in "${POOL_ORDER[@]}"; do
		[[ -n ${POOL_PACED[$name]:-} && ${POOL_STATE[$name]} == PASS ]] || continue
		((${POOL_COST[$name]:-0} > 0)) || continue
		layer=${POOL_LAYER[$name]}
		secs=$((secs + POOL_SECS[$name])) cost=$((cost + POOL_COST[$name]))
		per_secs[$layer]=$((${per_secs[$layer]:-0} + POOL_SECS[$name]))
		per_cost[$layer]=$((${per_cost[$layer]:-0} + POOL_COST[$name]))
		r=$((POOL_SECS[$name] * 100 / POOL_COST[$name]))
		[[ -n $slowest ]] && ((r <= ${slowest%% *})) || slowest="$r $name"
		[[ -n $fastest ]] && ((r >= ${fastest%% *})) || fastest="$r $name"
	done
	((cost > 0 && secs > 0)) || return 0
	printf '    pace: the guests took %s their reference time (%ss against %ss; ' \
		"$(_pool_ratio $((secs * 100 / cost)))" "$secs" "$cost"
	for layer in "${POOL_LAYERS[@]}"; do
		[[ -n ${per_cost[$layer]:-} ]] || continue
		printf '%s %s, ' "$layer" "$(_pool_ratio $((per_secs[$layer] * 100 / per_cost[$layer])))"
	done
	printf 'fastest %s %s, slowest %s %s)\n' "${fastest#* }" "$(_pool_ratio "${fastest%% *}")" \
		"${slowest#* }" "$(_pool_ratio "${slowest%% *}")"
	printf '    at the reference pace this run would take about %ss\n' $((SECONDS * cost / secs))
}

pool_summary() {
	local layer name n failed secs result passed=0 nfailed=0 tests
	printf '\n==> summary (%ss in all' "$SECONDS"
	if ((POOL_WALL > 0)); then
		printf '; the pool %ss on %s slots, %s.%s of them busy on average' "$POOL_WALL" "$POOL_SLOTS" \
			$((POOL_BUSY / POOL_WALL)) $((POOL_BUSY * 10 / POOL_WALL % 10))
	fi
	printf ')\n    %-18s %-22s %6s %7s\n' layer result tests seconds
	for layer in "${POOL_LAYERS[@]}"; do
		n=0 failed=0 secs=0
		for name in "${POOL_ORDER[@]}"; do
			[[ ${POOL_LAYER[$name]} == "$layer" ]] || continue
			n=$((n + 1)) secs=$((secs + ${POOL_SECS[$name]:-0}))
			[[ ${POOL_STATE[$name]} == PASS ]] || failed=$((failed + 1))
		done
		if ((failed == 0)); then
			result=PASS passed=$((passed + 1))
		elif ((n == 1)); then
			for name in "${POOL_ORDER[@]}"; do [[ ${POOL_LAYER[$name]} != "$layer" ]] || result=${POOL_STATE[$name]}; done
			nfailed=$((nfailed + 1))
		else
			result="FAIL ($failed of $n)" nfailed=$((nfailed + 1))
		fi
		tests=${POOL_LAYER_TESTS[$layer]:--}
		printf '    %-18s %-22s %6s %7s\n' "$layer" "$result" "$tests" "$secs"
	done
	pool_pace
	[[ ! -e $POOL_LOGS/cpu-probe.txt ]] || "$POOL_DIR/cpu-probe" summary "$POOL_LOGS/cpu-probe.txt"
	for name in "${POOL_ORDER[@]}"; do
		if [[ ${POOL_STATE[$name]} != PASS && ${POOL_LAYER[$name]} != "$name" ]]; then
			printf '    failed: %s (%s): %s\n' "$name" "${POOL_LAYER[$name]}" "${POOL_STATE[$name]}"
		fi
		if [[ -s $POOL_LOGS/$name.note ]]; then
			printf '    note: %s: %s\n' "$name" "$(head -n 1 "$POOL_LOGS/$name.note")"
		fi
	done
	if [[ -s $1 ]]; then
		printf '\n==> why the failed tests failed\n'
		cat "$1"
	fi
	echo "$passed layers passed, $nfailed failed"
}
