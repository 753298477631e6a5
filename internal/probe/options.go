package probe

import (
	"math"
	"strconv"
	"time"

	"github.com/qjump-net/qjump/internal/model"
)

// Options are checked before any socket is opened, so that bad input is one line naming the field
// (a *model.FieldError, which the CLI turns into exit status 2) instead of a failure mid-run.

// Validate checks the client's options.
func (o ClientOptions) Validate() error {
	switch {
	case o.To == "":
		return &model.FieldError{Field: "to", Value: o.To, Allowed: "a server address:port"}
	case o.Mode != RequestResponse && o.Mode != OneWay:
		return &model.FieldError{Field: "mode", Value: string(o.Mode), Allowed: "rr or oneway"}
	case o.Count < 1:
		return &model.FieldError{Field: "count", Value: strconv.Itoa(o.Count), Allowed: "at least 1"}
	case o.Size < MinSize || o.Size > MaxSize:
		return &model.FieldError{Field: "size", Value: strconv.Itoa(o.Size), Allowed: strconv.Itoa(MinSize) + " to " + strconv.Itoa(MaxSize) + " bytes"}
	case o.Interval < 0:
		return durationError("interval", o.Interval, "0 or more")
	case o.Timeout <= 0:
		return durationError("timeout", o.Timeout, "more than 0")
	}
	return tosError(o.TOS)
}

// Validate checks the server's options.
func (o ServerOptions) Validate() error {
	switch {
	case o.Listen == "":
		return &model.FieldError{Field: "listen", Value: o.Listen, Allowed: "an address:port"}
	case o.Limit < 0:
		return &model.FieldError{Field: "limit", Value: strconv.Itoa(o.Limit), Allowed: "0 (no limit) or more"}
	case o.ReceiveBuffer < 0:
		return &model.FieldError{Field: "receive-buffer", Value: strconv.Itoa(o.ReceiveBuffer), Allowed: "0 (the default) or more bytes"}
	case o.For < 0:
		return durationError("for", o.For, "0 (until interrupted) or more")
	}
	return tosError(o.TOS)
}

// Validate checks the memcached load's options.
func (o KVOptions) Validate() error {
	switch {
	case o.Server == "":
		return &model.FieldError{Field: "server", Value: o.Server, Allowed: "a memcached address:port"}
	case o.Count < 0:
		return &model.FieldError{Field: "count", Value: strconv.Itoa(o.Count), Allowed: "0 or more"}
	case o.Keys < 1:
		return &model.FieldError{Field: "keys", Value: strconv.Itoa(o.Keys), Allowed: "at least 1"}
	case o.Value < 0 || o.Value > MaxValue:
		return &model.FieldError{Field: "value", Value: strconv.Itoa(o.Value), Allowed: "0 to " + strconv.Itoa(MaxValue) + " bytes (memcached's item limit)"}
	case math.IsNaN(o.GetRatio) || o.GetRatio < 0 || o.GetRatio > 1:
		return &model.FieldError{Field: "get-ratio", Value: strconv.FormatFloat(o.GetRatio, 'g', -1, 64), Allowed: "0 to 1"}
	case o.Interval < 0:
		return durationError("interval", o.Interval, "0 or more")
	case o.For < 0:
		return durationError("for", o.For, "0 (no limit) or more")
	}
	return nil
}

// MaxSize is the largest probe payload: one UDP datagram.
const MaxSize = 65000

// MaxValue is memcached's default item size limit (-I 1m).
const MaxValue = 1 << 20

func durationError(field string, d time.Duration, allowed string) error {
	return &model.FieldError{Field: field, Value: d.String(), Allowed: allowed}
}

func tosError(tos int) error {
	if tos < 0 || tos > 255 {
		return &model.FieldError{Field: "tos", Value: strconv.Itoa(tos), Allowed: "0 to 255"}
	}
	return nil
}
