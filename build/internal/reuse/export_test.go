package reuse

// For the tests in package reuse_test, which build a real bundle first.

func Names(p *Last) []string { return p.names }
