#!/bin/sh
# Rebuild ui/vendor/editor.js from the npm registry only (run from anywhere).
set -eu
cd "$(dirname "$0")"
npm ci
npm run build
