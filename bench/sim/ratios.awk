# bench/sim/ratios.awk: what a set of NEW/OLD ratios says, for bench/sim/ab. Reads one ratio a
# line, sorted ascending (sort -n), and prints:
#   - the median and the range;
#   - how many pairs NEW won, and the two-sided sign test's p: the chance of a split at least that
#     uneven if each pair were a coin toss (pairs at exactly 1.000 left out);
#   - a distribution-free interval for the median ratio from the order statistics (the j-th
#     smallest and the j-th largest ratio, j the largest for which the binomial coverage is still
#     95 %), when there are 6 pairs or more.
# The sign test and the interval assume nothing about the noise's shape, which on a shared host is
# skewed (a slow stretch hits one pair hard).

function binom(n, k,    c, i) {
	c = 1
	for (i = 1; i <= k; i++) c = c * (n - k + i) / i
	return c
}

# tail(n, k): P(X <= k) for X ~ Binomial(n, 1/2).
function tail(n, k,    s, i) {
	s = 0
	for (i = 0; i <= k; i++) s += binom(n, i)
	return s / 2 ^ n
}

{ r[NR] = $1; if ($1 > 1) up++; else if ($1 < 1) down++ }

END {
	if (NR == 0) exit
	m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
	printf "median new/old %.3f over %d pairs (range %s-%s)\n", m, NR, r[1], r[NR]
	n = up + down
	if (n > 0) {
		p = 2 * tail(n, (up < down) ? up : down)
		printf "new faster in %d of %d pairs, slower in %d (sign test p = %.3f)\n", up, NR, down, (p > 1) ? 1 : p
	}
	# The interval [r_j, r_(NR-j+1)] holds the median with probability 1 - 2 P(X <= j-1).
	j = 0
	for (k = 1; 2 * k <= NR; k++)
		if (1 - 2 * tail(NR, k - 1) >= 0.95) j = k
	if (j > 0)
		printf "95%% interval of the median ratio: %s-%s (order statistics %d and %d)\n", r[j], r[NR - j + 1], j, NR - j + 1
}
