# The Debian sandbox image: the toolbox of every sandbox plus the real Linux
# programs some tasks need — espeak-ng (speech synthesis), pocketsphinx with
# its English model (transcription), sox (resampling), pdftotext (a second PDF
# extractor) and a shell.
#
# BASE is killchain/debian-base:<hash>: debian:bookworm-slim with those
# packages where it can be pulled, otherwise a debootstrap --variant=minbase
# root filesystem imported through the Docker API (images/debian_base.go,
# images/debian-rootfs.sh). Nothing here needs the network.
ARG BASE
FROM ${BASE}
COPY toolbox /toolbox
# kcaudio is cmd/kcaudio: the toolbox's -synth and -asr argv.
COPY kcaudio /usr/local/bin/kcaudio
# Check the programs are there and the helper runs on this base.
RUN ["/usr/local/bin/kcaudio", "check"]
# /work is the state folder (a tmpfs in run containers); /snapshot holds a
# task's pristine state once committed. 65534 is Debian's "nobody".
WORKDIR /work
ENV HOME=/work
USER 65534:65534
ENTRYPOINT ["/toolbox"]
CMD ["serve", "-state", "/work", "-pristine", "/snapshot"]
