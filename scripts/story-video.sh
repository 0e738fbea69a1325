#!/usr/bin/env bash
# Makes the stories' sample video (a lap of an oval track, 4 s, 320x180, VP9 WebM, no sound)
# with ffmpeg from the system's packages, into the bundled story content. Run it again after
# changing the drawing; the result is committed (about 10 KB), so nothing else needs ffmpeg.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ffmpeg >/dev/null || { echo "ffmpeg is missing: apt-get install ffmpeg"; exit 1; }
out=Sources/QuestlineFeatures/Resources/stories/assets/videos/lap.webm
ffmpeg -v error -y \
  -f lavfi -i color=c=0x1f3b5c:s=320x180:d=4:r=24 \
  -f lavfi -i color=c=0xffcc33:s=14x14:d=4:r=24 \
  -filter_complex "[0]drawbox=x=30:y=25:w=260:h=130:color=white@0.9:t=6,drawbox=x=46:y=41:w=228:h=98:color=0x2e9e4f:t=fill,drawbox=x=150:y=19:w=20:h=18:color=white:t=fill,drawbox=x=150:y=19:w=10:h=9:color=black:t=fill,drawbox=x=160:y=28:w=10:h=9:color=black:t=fill[track];[track][1]overlay=x='153+122*cos(2*PI*t/4)':y='83+57*sin(2*PI*t/4)':shortest=1" \
  -c:v libvpx-vp9 -b:v 150k -deadline good -an "$out"
echo "Wrote $out ($(wc -c <"$out") bytes)"
