#!/usr/bin/env bash
# Fetch, into .whl/ (ignored by git), the wheels the GPU machines' python3 lacks for bench/gpu_acceptance.py:
# fastcore (the library's flags), MONAI (the 3D U-Net), and nbdev with what it needs (the `#| gpu` cells).
# Their image has torch, timm, transformers, pandas, seaborn, psutil, tqdm and nvidia-ml-py already.
# There, first:  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl
#                export PYTHONPATH=/tmp/site
set -e
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || grep -qx '/.whl/' .gitignore || echo /.whl/ >> .gitignore
plat="--platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64"
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp $plat -d .whl \
  fastcore==2.2.41 monai==1.6.1 nbdev==3.3.26 execnb==0.3.4 ghapi==2.1.4 asttokens==3.0.2 astunparse==1.6.3 \
  watchdog==7.1.0 fastgit==0.1.4 ipython==9.18.1 ipython_pygments_lexers==1.1.1 jedi==0.20.1 parso==0.8.7 \
  matplotlib-inline==0.2.2 traitlets==5.16.1 pexpect==4.9.0 ptyprocess==0.7.0 prompt_toolkit==3.0.53 wcwidth==0.9.4 \
  stack-data==0.6.3 executing==2.3.0 pure_eval==0.2.4 decorator==5.2.1 "$@"
ls .whl
