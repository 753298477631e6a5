package model

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Rate is a link or level rate in bits per second. It is a float because derived rates
// (f·P·8/E) are rarely whole numbers of bits per second.
type Rate float64

// Bytes is a size in bytes: a packet, a budget.
type Bytes int64

// Units people write. Rates are always bits: "10G", "10Gbit", "10Gb/s", "10Gbps", "100M", and
// tc's lowercase "10gbit", "100mbit".
// Sizes are bytes, decimal (k, M, G) or binary (KiB, MiB, GiB): "1500", "1500B", "9k", "9KiB".
// Durations are Go durations with µ, μ or u for micro: "4us", "4µs", "1.05ms"; "0" is allowed.

const (
	rateAllowed     = "need a number of bits per second, at least 1, e.g. 10G, 10Gbit, 10gbit, 10Gb/s, 100M, 100mbit, 2.5Gbps (bits, never B for bytes)"
	bytesAllowed    = "need a whole number of bytes, e.g. 1500, 1500B, 9k, 9KiB, 64KB"
	durationAllowed = "need a duration with a unit, e.g. 0, 500ns, 4us, 4µs, 1.05ms"
)

var decimalPrefix = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

// ratePrefix adds the lowercase prefixes tc writes ("10gbit", "100mbit") to decimalPrefix. A
// lowercase m is mega, not milli, as in tc: a thousandth of a bit per second is no link rate.
var ratePrefix = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}

var binaryPrefix = map[string]float64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}

// splitNumber splits "10.5Gb/s" into 10.5 and "Gb/s". Exponents are not accepted: "1e9" reads as
// 1 and the unit "e9", which no unit table knows, so it is rejected rather than guessed.
func splitNumber(s string) (float64, string, error) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	if i == 0 {
		return 0, "", errors.New("no number")
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", err
	}
	return v, strings.TrimSpace(s[i:]), nil
}

// UnitlessRate is the warning for a rate written without a unit (what names it and its text s),
// "" when s has one or is no rate. ParseRate reads a bare number as bits per second, as tc does
// and as the configurations that status --json and the pinned record write give R ("rate:
// 10000000000"), so it stays valid; but a person who writes `rate: 25` most likely meant 25G, and
// at 25 b/s the model is as valid as it is useless, so the reading is said, with the fix.
func UnitlessRate(what, s string) string {
	v, unit, err := splitNumber(strings.TrimSpace(s))
	if err != nil || unit != "" {
		return ""
	}
	if _, err := ParseRate(s); err != nil {
		return ""
	}
	n := strconv.FormatFloat(v, 'f', -1, 64)
	if v >= 1e6 {
		// A number this large is most likely meant as bits already: "10000000000G" would be a
		// rate no link has.
		return fmt.Sprintf("%s %q has no unit: read as %s, bits per second; write the unit to say so, e.g. %s, or %sb",
			what, strings.TrimSpace(s), Rate(v), Rate(v), n)
	}
	return fmt.Sprintf("%s %q has no unit: read as %s, bits per second; write the unit to say which, e.g. %sG for %s Gb/s, %sb for bits",
		what, strings.TrimSpace(s), Rate(v), n, n, n)
}

// ParseRate reads a rate in bits per second. A capital B (bytes) is refused rather than silently
// multiplied by 8: network people write bits. ("bps" is bits here, as in "10Gbps"; tc alone reads
// it as bytes, and tc's own spelling of bits, "10gbit", is accepted.)
func ParseRate(s string) (Rate, error) {
	v, unit, err := splitNumber(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New(rateAllowed)
	}
	prefix, ok := cutRateUnit(unit)
	if !ok {
		return 0, errors.New(rateAllowed)
	}
	mul, ok := ratePrefix[prefix]
	if !ok {
		return 0, errors.New(rateAllowed)
	}
	r := v * mul
	// Below one bit per second nothing is a rate worth limiting, and it would not print back.
	if r < 1 || math.IsInf(r, 0) {
		return 0, errors.New(rateAllowed)
	}
	return Rate(r), nil
}

// cutRateUnit removes the bit unit from "Gb/s", "Gbit", "Gbps", "G" and returns the prefix.
func cutRateUnit(unit string) (string, bool) {
	for _, suffix := range []string{"bit/s", "bits/s", "bps", "b/s", "bit", "bits", "b"} {
		if strings.HasSuffix(unit, suffix) {
			return strings.TrimSuffix(unit, suffix), true
		}
	}
	if strings.ContainsAny(unit, "B/") {
		return "", false
	}
	return unit, true
}

// String prints a rate the way ParseRate reads it, with four significant digits: "416.7Mb/s".
func (r Rate) String() string {
	v := float64(r)
	for _, p := range []struct {
		prefix string
		mul    float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if math.Abs(v) >= p.mul {
			return formatSig(v/p.mul) + p.prefix + "b/s"
		}
	}
	return formatSig(v) + "b/s"
}

// ParseBytes reads a size in bytes. The result must be a whole number of bytes.
func ParseBytes(s string) (Bytes, error) {
	v, unit, err := splitNumber(strings.TrimSpace(s))
	if err != nil {
		return 0, errors.New(bytesAllowed)
	}
	if u, ok := strings.CutSuffix(unit, "bytes"); ok {
		unit = u
	} else {
		unit = strings.TrimSuffix(unit, "B")
	}
	mul, ok := decimalPrefix[unit]
	if !ok {
		mul, ok = binaryPrefix[unit]
	}
	if !ok {
		return 0, errors.New(bytesAllowed)
	}
	b := v * mul
	// "1.001MB" is 1000999.9999999999 in floating point: accept what is a whole number up to
	// float error, refuse real fractions ("1.0001k").
	if r := math.Round(b); math.Abs(b-r) <= 1e-9*math.Max(1, b) {
		b = r
	}
	if b != math.Trunc(b) || b > math.MaxInt64/2 {
		return 0, errors.New(bytesAllowed)
	}
	return Bytes(b), nil
}

// String prints a size the way ParseBytes reads it: exact bytes below 100 kB ("1500B", "9000B"),
// four significant digits above ("180kB", "1.296MB").
func (b Bytes) String() string {
	v := float64(b)
	switch {
	case b < 100_000:
		return strconv.FormatInt(int64(b), 10) + "B"
	case v < 1e6:
		return formatSig(v/1e3) + "kB"
	case v < 1e9:
		return formatSig(v/1e6) + "MB"
	default:
		return formatSig(v/1e9) + "GB"
	}
}

// wellFormedDuration is what time.ParseDuration reads when the value fits.
var wellFormedDuration = regexp.MustCompile(`^[-+]?([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+$`)

// exponent is a number in exponent notation at the start of a duration ("1e3ns"), which Go's
// syntax does not read: told so, rather than that it needs the unit it has.
var exponent = regexp.MustCompile(`^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)[eE][-+]?[0-9]`)

// ParseDuration reads a duration; Go's syntax already accepts "us", "µs" and "μs".
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	d, err := time.ParseDuration(s)
	if err != nil && wellFormedDuration.MatchString(s) { // beyond time.Duration's 292 years
		return 0, errors.New("need a duration of at most 292 years, e.g. 0, 500ns, 4us")
	}
	if err != nil && exponent.MatchString(s) {
		return 0, errors.New("need a number without an exponent and a unit, e.g. 1000ns or 1us for 1e3ns, 4us, 1.05ms")
	}
	if err != nil {
		return 0, errors.New(durationAllowed)
	}
	if d < 0 { // a unit was there: the sign is what is wrong
		return 0, errors.New("need 0 or more, not a negative duration, e.g. 0, 500ns, 4us")
	}
	if ps, ok := DurationPicoseconds(strings.TrimPrefix(s, "+")); ok && !new(big.Rat).Quo(ps, big.NewRat(1000, 1)).IsInt() {
		// time.ParseDuration drops what is finer than a nanosecond: --epsilon 0.5ns was 0.
		return 0, errors.New("need a whole number of nanoseconds, e.g. 1ns, 1.5us")
	}
	return d, nil
}

// psPerUnit is Go's duration units, and ps, in picoseconds.
var psPerUnit = map[string]int64{"ps": 1, "ns": 1e3, "us": 1e6, "µs": 1e6, "μs": 1e6, "ms": 1e9, "s": 1e12, "m": 60e12, "h": 3600e12}

// durationTerm is one number and unit of a duration in Go's syntax ("1.5ns"; "1m30s" has two).
// "ms" is tried before "m", and the first alternative that matches wins.
var durationTerm = regexp.MustCompile(`^([0-9]+\.?[0-9]*|\.[0-9]+)(ps|ns|us|µs|μs|ms|s|m|h)`)

// DurationPicoseconds reads a duration without a sign in Go's syntax, and ps, as an exact number
// of picoseconds: the sum of its terms in fractions, so that nothing is rounded and nothing
// wraps around; false if s is not one.
func DurationPicoseconds(s string) (*big.Rat, bool) {
	total := new(big.Rat)
	if s == "" {
		return total, false
	}
	for s != "" {
		m := durationTerm.FindStringSubmatch(s)
		if m == nil {
			return total, false
		}
		v, _ := new(big.Rat).SetString(m[1]) // the pattern admits only decimals
		total.Add(total, v.Mul(v, big.NewRat(psPerUnit[m[2]], 1)))
		s = s[len(m[0]):]
	}
	return total, true
}

// FormatDuration prints a duration the way ParseDuration reads it: "28.8µs", "1.0368ms", "0s".
// It is exact, for what is written to be read again (a file, JSON); a message prints DurationText.
func FormatDuration(d time.Duration) string {
	return d.String()
}

// DurationText prints d for a person to read: four significant digits in one unit, the largest of
// ns, µs, ms, s and h that leaves at least 1 ("29.53µs", "24.61s", "2400h"), rounded to the
// nearest. It is not read back: FormatDuration is exact ("1h22m1.6s", "2400h0m0.00002953s").
func DurationText(d time.Duration) string { return secondsText(d.Seconds(), roundNearest) }

// DurationAtMost is DurationText rounded down, for the largest value a message allows: what the
// message says is allowed is ("need ε at most 2399h", not 2400h).
func DurationAtMost(d time.Duration) string { return secondsText(d.Seconds(), roundDown) }

// BoundText is DurationText rounded up, for a latency bound: the time a user reads is never
// less than the bound the model gives (14.762µs reads 14.77µs, not 14.76µs).
func BoundText(d time.Duration) string { return durationAbove(d.Seconds()) }

// durationAbove is DurationText rounded up, for a value a message says is over a limit: one just
// over reads over it, not equal to it.
func durationAbove(s float64) string { return secondsText(s, roundUp) }

// messageUnits are DurationText's units, largest first, each with the value at which the next
// larger one takes over.
var messageUnits = []struct {
	name    string
	seconds float64
	upTo    float64 // in this unit
}{{"h", 3600, math.Inf(1)}, {"s", 1, 3600}, {"ms", 1e-3, 1000}, {"µs", 1e-6, 1000}, {"ns", 1e-9, 1000}}

// secondsText prints s seconds in the largest of messageUnits that leaves at least 1, rounded to
// four significant digits by r; s may be beyond time.Duration (an epoch a message refuses).
func secondsText(s float64, r sigRounding) string {
	if !(s > 0) || math.IsInf(s, 0) {
		return "0s"
	}
	i := len(messageUnits) - 1
	for j, u := range messageUnits {
		if s >= u.seconds {
			i = j
			break
		}
	}
	v := roundSig(s/messageUnits[i].seconds, r.round, r.nudge)
	if i > 0 && v >= messageUnits[i].upTo { // rounded up to the next unit: 999.96µs is 1ms
		i--
		v = roundSig(s/messageUnits[i].seconds, r.round, r.nudge)
	}
	return formatSig(v) + messageUnits[i].name
}

// sigRounding is a way to round to four significant digits: to the nearest, or up or down with
// a nudge that keeps a figure already four digits but for float noise where it is (ceilSig).
type sigRounding struct {
	round func(float64) float64
	nudge float64
}

var (
	roundNearest = sigRounding{math.Round, 1}
	roundUp      = sigRounding{math.Ceil, 1 - 1e-12}
	roundDown    = sigRounding{math.Floor, 1 + 1e-12}
)

// formatSig prints v with at most four significant digits and no trailing zeros.
func formatSig(v float64) string {
	s := strconv.FormatFloat(v, 'f', sigDecimals(v), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func sigDecimals(v float64) int {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return 0
	case a >= 100:
		return 1
	case a >= 10:
		return 2
	default:
		return 3
	}
}

// ParseDecimal reads a number as people write it, digits with a point and an exponent at most:
// Go's ParseFloat also reads "1_0" as 10 and "0x1p4" as 16, which a typo in a factor or a load
// should not become.
func ParseDecimal(s string) (float64, error) {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return strconv.ParseFloat(s, 64)
}

// ParseFactor reads a throughput factor: a positive number, or "unlimited" for a level with no
// budget. Factor 0 is invalid, not a way of saying unlimited.
func ParseFactor(s string) (Factor, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "unlimited") {
		return Unlimited(), nil
	}
	v, err := ParseDecimal(s)
	if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return Factor{}, fmt.Errorf("need a number greater than 0, or \"unlimited\"")
	}
	return Limited(v), nil
}
