package skill

import (
	"strings"
	"testing"
)

func TestSuggestName(t *testing.T) {
	for in, want := range map[string]string{
		"MySkill": "my-skill", "mySkill": "my-skill", "PDFTools": "pdf-tools", "PDF_Tools": "pdf-tools",
		"pdf tools": "pdf-tools", "Pdf--Tools-": "pdf-tools", "v2Parser": "v2-parser", "ABC": "abc",
		"skill2": "skill2", "café": "cafe", "Résumé Builder": "resume-builder", "DevOps Engineer": "devops-engineer", "SharePoint_Automation": "sharepoint-automation", "ﬁle": "file", "": "my-skill", "__": "my-skill",
		// Too long: cut where a word ends, or at 64 in a word that long.
		"extraction-parameter-optimization-ppm-retention-time-ion-mobility":  "extraction-parameter-optimization-ppm-retention-time-ion",
		"extraction-parameter-optimization-ppm-retention-time-ion-mobilit-x": "extraction-parameter-optimization-ppm-retention-time-ion-mobilit",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := SuggestName(in); got != want {
			t.Errorf("SuggestName(%q) = %q, want %q", in, got, want)
		}
	}
}
