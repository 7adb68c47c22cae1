# The toolbox image: nothing but the static in-sandbox toolbox binary
# (cmd/toolbox, built with CGO_ENABLED=0). It needs no base image, so it builds
# offline. Task snapshots are committed on top of it with their pristine state
# under /snapshot; each run's container copies that into the writable tmpfs
# mounted at /work and serves tool calls over stdin/stdout.
FROM scratch
COPY toolbox /toolbox
# /work is the state folder (a tmpfs in run containers); /snapshot holds a
# task's pristine state once committed.
WORKDIR /work
USER 65534:65534
ENTRYPOINT ["/toolbox"]
CMD ["serve", "-state", "/work", "-pristine", "/snapshot"]
