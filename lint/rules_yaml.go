package lint

var yamlRules = []*Rule{}
