//go:build !linux

package cli

// noteHWM does nothing here: the peak is not measured (runChild's rss is 0).
func noteHWM() {}
