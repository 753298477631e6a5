package config

import (
	"errors"
	"testing"

	"github.com/qjump-net/qjump/internal/model"
)

// A rate the egress tree cannot shape is refused as the rate, before anything is made: up planned
// the tree at 7 b/s and failed with exit 1 naming no flag, and calc took the rate (review,
// helper-80). 8 b/s, HTB's slowest, is taken.
func TestValidateRefusesARateTheTreeCannotShape(t *testing.T) {
	for _, c := range []struct {
		rate model.Rate
		ok   bool
	}{{7, false}, {1, false}, {8, true}} {
		d := Default()
		d.Model.Hosts, d.Model.Rate = 1, c.rate
		err := d.Validate()
		var fe *model.FieldError
		if c.ok != (err == nil) || !c.ok && (!errors.As(err, &fe) || fe.Field != "rate") {
			t.Errorf("rate %s: %v; want ok %v, or refused as the rate", c.rate, err, c.ok)
		}
	}
}
