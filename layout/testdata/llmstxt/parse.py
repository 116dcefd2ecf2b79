# Prints, as JSON, what the llms.txt proposal's reference parser
# (miniparse.py, beside this file) reads from the file named by the first
# argument. Written for skillpack's tests; see README.md.
import json
import sys
import warnings

warnings.simplefilter("ignore")  # miniparse.py's regexes are not raw strings

from miniparse import parse_llms_txt

with open(sys.argv[1], encoding="utf-8") as f:
    print(json.dumps(parse_llms_txt(f.read()), sort_keys=True))
