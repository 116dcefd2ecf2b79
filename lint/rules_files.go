package lint

var fileRules = []*Rule{}
