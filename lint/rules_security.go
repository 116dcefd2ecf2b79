package lint

var securityRules = []*Rule{}
