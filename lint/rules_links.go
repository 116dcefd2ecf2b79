package lint

var linkRules = []*Rule{}
