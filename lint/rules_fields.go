package lint

var fieldRules = []*Rule{}
