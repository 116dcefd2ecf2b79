package lint

var entryRules = []*Rule{}
