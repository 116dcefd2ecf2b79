package lint

var bodyRules = []*Rule{}
