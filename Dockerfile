# brainbot: one process serving Slack, Telegram, the capture API, MCP over HTTP, email
# in, digests, health and metrics. With no terminal it runs headless (no console chat).
# Build: docker build -t brainbot .   Run: see compose.yaml and docs/production.md.

FROM python:3.11-slim AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md ./
COPY app ./app
COPY bot ./bot
COPY adapters ./adapters
COPY storage ./storage
COPY scheduler ./scheduler
# Everything goes into one virtual environment, copied whole into the final image.
RUN python -m venv /opt/brainbot \
    && /opt/brainbot/bin/pip install --no-cache-dir --no-compile . \
    && find /opt/brainbot -name '__pycache__' -prune -exec rm -rf {} +

FROM python:3.11-slim
# git for the vault's backups, ssh for git@ remotes, tini so that the embedded
# Postgres' processes are reaped and signals reach brainbot; Tesseract and its English,
# German, Japanese and Chinese models read the text in photos (bot.readers.images).
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git openssh-client ca-certificates tini \
       tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn tesseract-ocr-chi-sim \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --gid 10001 brainbot \
    && useradd --create-home --uid 10001 --gid 10001 brainbot \
    && mkdir /data \
    && chown 10001:10001 /data
COPY --from=build /opt/brainbot /opt/brainbot
ENV PATH=/opt/brainbot/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    BRAINBOT_DATA_DIR=/data \
    BRAINBOT_HTTP_HOST=0.0.0.0 \
    BRAINBOT_HTTP_PORT=8080
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('BRAINBOT_HTTP_PORT', '8080'), timeout=4)"]
ENTRYPOINT ["tini", "--", "brainbot"]
CMD ["run"]
