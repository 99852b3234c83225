# fidelity.awk: the numbers of figure 4, from luabpfprof's folded output
# (--jp F -f folded: "comm;frame;...;leaf COUNT") and jit.p's text report
# (-jp=Fm0r: "COUNT  key", or "NN%  key" without r).  Modes (-v mode=...):
#
#   truth    (folded) Each sample belongs to the phase whose function is the
#            nearest frame to the leaf among the truth keys (or their
#            aliases, e.g. a sort comparator called by its phase); samples
#            with none of them count as "other", whose truth is 0.  Prints
#            "MAXERR phase=share ...", MAXERR in percentage points.
#   jptruth  (jit.p report) The same from jit.p's keys: a key is its phase,
#            through the aliases, or "other".
#   jpkeys   (folded) The jit.p view of the samples: each sample is charged
#            to its nearest Lua frame (jit.p charges C and fast functions to
#            the Lua function that runs next); samples without any Lua frame
#            ([host]) are left out.  Prints "key share" lines.
#   jpreport (jit.p report) "key share" lines.
#   jpcount  (jit.p report with raw counts, mode r) the number of samples.
#   compare  (two "key share" files: luabpfprof's, then jit.p's) Prints
#            "SAME MAXDIFF": SAME is 1 when both show the same keys at
#            jit.p's default 3% threshold (shares rounded as jit.p rounds),
#            MAXDIFF the largest share difference over all keys, in points.
#
# truth="k=v k=v ..." and alias="k=phase ..." come from the workload's
# "-- truth:" and "-- alias:" header lines.

function setup(   n, i, kv, p) {
	n = split(truth, kv, " ")
	for (i = 1; i <= n; i++) {
		split(kv[i], p, "=")
		want[p[1]] = p[2] + 0
		phase[p[1]] = p[1]
	}
	n = split(alias, kv, " ")
	for (i = 1; i <= n; i++) {
		split(kv[i], p, "=")
		phase[p[1]] = p[2]
	}
}

function is_lua(f) {
	return f ~ /:[^:]*$/ && f !~ /^[@[]/
}

function jpround(x) {
	return int(x + 0.5)
}

BEGIN { setup() }

mode == "truth" || mode == "jpkeys" {
	c = $NF + 0
	stack = $0
	sub(/ [0-9]+$/, "", stack)
	n = split(stack, fr, ";")
	total += c
	if (mode == "truth") {
		ph = "other"
		for (i = n; i >= 2; i--)
			if (fr[i] in phase) { ph = phase[fr[i]]; break }
		got[ph] += c
	} else {
		key = ""
		for (i = n; i >= 2; i--)
			if (is_lua(fr[i])) { key = fr[i]; break }
		if (key == "")
			total -= c	# no Lua at all ([host]): jit.p cannot see it
		else
			got[key] += c
	}
	next
}

mode == "jptruth" || mode == "jpreport" || mode == "jpcount" {
	if ($0 !~ /^ *[0-9]+%?  /)
		next
	share = $1
	sub(/%/, "", share)
	key = $0
	sub(/^ *[0-9]+%?  /, "", key)
	if (mode == "jptruth")
		got[(key in phase) ? phase[key] : "other"] += share
	else
		got[key] += share
	total += share
	next
}

mode == "compare" {
	if (FNR == 1)
		file++
	if (file == 1)
		a[$1] = $2
	else
		b[$1] = $2
	keys[$1] = 1
	next
}

END {
	if (mode == "compare") {
		same = 1
		max = 0
		for (k in keys) {
			x = (k in a) ? a[k] : 0
			y = (k in b) ? b[k] : 0
			if ((jpround(x) >= 3) != (y >= 3))
				same = 0
			d = x > y ? x - y : y - x
			if (d > max)
				max = d
		}
		printf "%d %.1f\n", same, max
		exit
	}
	if (mode == "jpcount") {
		print total + 0
		exit
	}
	if (!total) {
		print "NA"
		exit
	}
	if (mode == "jpkeys" || mode == "jpreport") {
		for (k in got)
			printf "%s %.2f\n", k, got[k] * 100 / total
		exit
	}
	max = 0
	out = ""
	for (k in want) {
		s = (k in got) ? got[k] * 100 / total : 0
		d = s > want[k] ? s - want[k] : want[k] - s
		if (d > max)
			max = d
		out = out sprintf(" %s=%.1f", k, s)
	}
	s = ("other" in got) ? got["other"] * 100 / total : 0
	if (s > max)
		max = s
	printf "%.1f%s other=%.1f\n", max, out, s
}
