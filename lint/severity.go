package lint

import (
	"fmt"
	"strings"
)

// Severity orders findings. Off disables a rule.
type Severity int

const (
	Off Severity = iota
	Info
	Warning
	Error
)

var severityNames = [...]string{Off: "off", Info: "info", Warning: "warning", Error: "error"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads "error", "warning", "info" or "off".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	if strings.EqualFold(s, "warn") {
		return Warning, nil
	}
	return Off, fmt.Errorf("unknown severity %q (want error, warning, info or off)", s)
}

// MarshalText writes the severity's name, so JSON and YAML carry words.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err == nil {
		*s = v
	}
	return err
}
