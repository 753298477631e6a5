// Package workload is the simulator's traffic: flow sizes drawn from an empirical CDF and flows
// arriving as a Poisson process at an offered load.
package workload

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/qjump-net/qjump/internal/sim/tcp"
)

//go:embed data/*.csv
var embedded embed.FS

// Names are the embedded workloads.
var Names = []string{"websearch", "datamining"}

// CDF is a flow-size distribution: sizes in bytes with their cumulative probabilities,
// interpolated linearly between points.
type CDF struct {
	Name string
	Size []float64
	Prob []float64
	mean float64
}

// Load returns an embedded workload by name, or reads a CDF file at that path.
func Load(nameOrFile string) (*CDF, error) {
	for _, n := range Names {
		if nameOrFile == n {
			f, err := embedded.Open("data/" + n + ".csv")
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return Parse(n, f)
		}
	}
	f, err := os.Open(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("open workload: %w", err)
	}
	defer f.Close()
	return Parse(nameOrFile, f)
}

// Parse reads "size_bytes,cdf" rows, '#' comments skipped, after an optional header: the first
// line that is no comment, if it starts with "size" in any case. Sizes and probabilities must not decrease,
// and the last probability must be 1.
func Parse(name string, r io.Reader) (*CDF, error) {
	c := &CDF{Name: name}
	sc := bufio.NewScanner(r)
	line, lastLine, first := 0, 0, true
	for sc.Scan() {
		line++
		t := sc.Text()
		if line == 1 {
			// Spreadsheets save "CSV UTF-8" with a byte-order mark, which is no part of the header.
			t = strings.TrimPrefix(t, "\ufeff")
		}
		t = strings.TrimSpace(t)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		// Only the first line can be a header: a "size..." line among the rows is a mistake
		// (two files run together), not a header to pass over.
		header := first && strings.HasPrefix(strings.ToLower(t), "size") // Size_Bytes,CDF too, as a spreadsheet writes it
		first = false
		if header {
			continue
		}
		size, prob, err := parseRow(name, line, t)
		if err != nil {
			return nil, err
		}
		if n := len(c.Size); n > 0 && (size < c.Size[n-1] || prob < c.Prob[n-1]) {
			return nil, fmt.Errorf("workload %s line %d: sizes and probabilities must not decrease", name, line)
		}
		c.Size, c.Prob, lastLine = append(c.Size, size), append(c.Prob, prob), line
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read workload %s: %w", name, err)
	}
	switch n := len(c.Prob); {
	case n == 0:
		return nil, fmt.Errorf("workload %s: no data rows: need SIZE_BYTES,CDF rows ending at CDF 1", name)
	case c.Prob[n-1] != 1:
		return nil, fmt.Errorf("workload %s line %d: the last row ends at CDF %g: need rows ending at CDF 1", name, lastLine, c.Prob[n-1])
	}
	c.mean = c.computeMean()
	return c, nil
}

// parseRow reads one SIZE_BYTES,CDF row, t, at line of workload name.
func parseRow(name string, line int, t string) (size, prob float64, err error) {
	a, b, ok := strings.Cut(t, ",")
	size, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	prob, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	// Written so that NaN fails every test: ParseFloat takes "NaN" and "Inf".
	if !ok || err1 != nil || err2 != nil || !(size > 0 && size <= MaxSize) || !(prob >= 0 && prob <= 1) {
		return 0, 0, fmt.Errorf("workload %s line %d: %q is not SIZE_BYTES,CDF with 0 < SIZE_BYTES ≤ %d and 0 ≤ CDF ≤ 1", name, line, t, int64(MaxSize))
	}
	return size, prob, nil
}

// Mean is the mean flow size in bytes of the interpolated distribution.
func (c *CDF) Mean() float64 { return c.mean }

func (c *CDF) computeMean() float64 {
	m := c.Size[0] * c.Prob[0]
	for i := 1; i < len(c.Size); i++ {
		m += (c.Prob[i] - c.Prob[i-1]) * (c.Size[i] + c.Size[i-1]) / 2
	}
	return m
}

// Quantile is the size at cumulative probability u in [0,1).
func (c *CDF) Quantile(u float64) float64 {
	for i, p := range c.Prob {
		if u < p || (u == p && i == len(c.Prob)-1) {
			if i == 0 {
				return c.Size[0]
			}
			lo, hi := c.Prob[i-1], p
			return c.Size[i-1] + (c.Size[i]-c.Size[i-1])*(u-lo)/(hi-lo)
		}
	}
	return c.Size[len(c.Size)-1]
}

// MaxSize is the largest flow a CDF may name, in bytes: the transports number a flow's packets
// with 32-bit integers (2^31 − 1 packets of tcp.MSS bytes, about 3.1 TB).
const MaxSize = math.MaxInt32 * tcp.MSS

// Draw maps a uniform u in [0,1) to a flow size in bytes, rounded up to whole 1460-byte packets
// as the ns-2 scripts draw sizes in packets.
func (c *CDF) Draw(u float64) int64 {
	return int64(roundUp(c.Quantile(u)))
}

// DrawnMean is the exact mean of Draw over a uniform u, in bytes: above Mean by the rounding to
// whole packets, which the load's arrival rate (computed from Mean, as the pFabric scripts do)
// does not count. It sums the atom at the first size and, on each segment of the CDF, a size
// uniform between its ends, rounded up to whole packets.
func (c *CDF) DrawnMean() float64 {
	m := c.Prob[0] * roundUp(c.Size[0])
	for i := 1; i < len(c.Size); i++ {
		p := c.Prob[i] - c.Prob[i-1]
		a, b := c.Size[i-1], c.Size[i]
		if p == 0 {
			continue
		}
		if a == b {
			m += p * roundUp(a)
			continue
		}
		m += p * (ceilIntegral(b) - ceilIntegral(a)) / (b - a)
	}
	return m
}

// roundUp is a size in whole packets, at least one, in bytes.
func roundUp(s float64) float64 { return max(1, math.Ceil(s/tcp.MSS)) * tcp.MSS }

// ceilIntegral is the integral of roundUp(x) dx from 0 to y: k−1 whole steps of MSS bytes each
// worth j·MSS, then the part of the k-th (y > 0).
func ceilIntegral(y float64) float64 {
	const m = float64(tcp.MSS)
	k := math.Ceil(y / m)
	return m*m*(k-1)*k/2 + k*m*(y-(k-1)*m)
}
