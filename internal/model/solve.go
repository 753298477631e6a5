package model

import "time"

// LevelResult is everything the model says about one configured level.
type LevelResult struct {
	Level     Level
	Factor    Factor
	Budget    Bytes // f·P per epoch; 0 when the factor is unlimited
	HasBudget bool  // false for an unlimited level
	Rate      Rate  // Budget·8/E capped at R (BudgetRate); R when unlimited
	Capped    bool  // the budget is above what R carries in an epoch, so Rate is the link's, not the budget's
	FanIn     FanIn
}

// Result is the model evaluated for a configuration.
type Result struct {
	Config         Config
	Epoch          time.Duration
	LineRateFactor float64
	Levels         []LevelResult // configured levels, highest first
	Warnings       []string
}

// Solve validates c and evaluates every equation for it.
func (c Config) Solve() (Result, error) {
	if err := c.Validate(); err != nil {
		return Result{}, err
	}
	r := Result{Config: c, Epoch: c.Epoch(), LineRateFactor: c.LineRateFactor(), Warnings: c.Warnings()}
	for _, l := range c.Factors.Levels() {
		f := c.Factors[l]
		budget, ok := c.Budget(f)
		r.Levels = append(r.Levels, LevelResult{
			Level: l, Factor: f, Budget: budget, HasBudget: ok, Rate: c.LevelRate(f), Capped: c.AboveLineRate(f),
			FanIn: c.FanIn(l),
		})
	}
	return r, nil
}
