#!/usr/bin/env python3
"""Prints the N slowest tests of a ctest run from its JUnit file (ctest --output-junit).

    slowest_tests.py JUNIT.xml [N]
"""
import sys
import xml.etree.ElementTree as ET


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    count = int(argv[2]) if len(argv) > 2 else 15
    cases = [(float(c.get('time', 0)), c.get('name', '?'), c.get('status', ''))
             for c in ET.parse(argv[1]).getroot().iter('testcase')]
    cases.sort(reverse=True)
    total = sum(t for t, _, _ in cases)
    print(f'{count} slowest of {len(cases)} tests ({total:.0f} s of test time in all):')
    for seconds, name, status in cases[:count]:
        print(f'  {seconds:8.1f} s  {name}{"" if status in ("run", "") else "  [" + status + "]"}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
