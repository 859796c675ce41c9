#!/bin/bash
# A headless "browser" for sign-in tests ($BROWSER): fetches the authorization URL and follows
# its redirects, as a person's browser would after they approve, down to toolhost's loopback
# redirect. Usage: fetch_browser.sh URL
set -eu
exec curl --silent --show-error --location --max-time 20 --output /dev/null "$1"
