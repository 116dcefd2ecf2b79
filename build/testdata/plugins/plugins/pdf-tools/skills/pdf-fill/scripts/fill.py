#!/usr/bin/env python3
import sys
print("filling", sys.argv[1:])
