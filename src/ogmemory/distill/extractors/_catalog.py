"""A small table of well-known tools and the slot each one fills.

A slot is what a "uses" relation is functional in: a team has one main language, one primary
database, one framework at a time. When the evidence says "we now use TypeScript", the slot
(``language``) is what lets reconciliation end the older "uses JavaScript" edge. Unknown tools
fall into the generic ``tool`` slot.

>>> lookup("typescript")
Tool(name='TypeScript', slot='language')
>>> slot_of("Postgres")
'database'
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Tool", "find_tool", "lookup", "slot_of"]


class Tool(NamedTuple):
    """A known tool: its canonical display name and its slot."""

    name: str
    slot: str


# slot -> canonical name -> aliases (lower case; the canonical name's lower case is implied)
_TABLE: dict[str, dict[str, tuple[str, ...]]] = {
    "language": {
        "JavaScript": ("js", "javascript es6", "es6", "vanilla js"),
        "TypeScript": ("ts",),
        "Python": ("python3", "python 3", "py"),
        "Go": ("golang",),
        "Rust": (),
        "Java": (),
        "Kotlin": (),
        "Swift": (),
        "C++": ("cpp",),
        "C#": ("csharp",),
        "Ruby": (),
        "PHP": (),
        "Scala": (),
        "Elixir": (),
        "Haskell": (),
        "Dart": (),
        "Lua": (),
        "Julia": (),
        "Zig": (),
        "Clojure": (),
        "OCaml": (),
        "Perl": (),
    },
    "database": {
        "PostgreSQL": ("postgres", "postgresql", "pg", "psql"),
        "MySQL": (),
        "SQLite": ("sqlite3",),
        "MongoDB": ("mongo",),
        "MariaDB": (),
        "DynamoDB": (),
        "Cassandra": (),
        "Neo4j": (),
        "ClickHouse": (),
        "Snowflake": (),
        "BigQuery": (),
        "Redshift": (),
        "Databricks": (),
        "DuckDB": (),
        "Supabase": (),
        "Firebase": ("firestore",),
        "Room": (),
        "Realm": (),
        "Core Data": (),
        "Oracle": (),
        "SQL Server": ("mssql",),
    },
    "cache": {
        "Redis": (),
        "Memcached": ("memcache",),
        "Valkey": (),
    },
    "queue": {
        "Kafka": ("apache kafka",),
        "RabbitMQ": ("rabbit",),
        "SQS": ("amazon sqs",),
        "NATS": (),
        "Pulsar": (),
        "Celery": (),
        "Sidekiq": (),
    },
    "search": {
        "Elasticsearch": ("elastic", "es"),
        "OpenSearch": (),
        "Solr": (),
        "Meilisearch": (),
        "Typesense": (),
        "Algolia": (),
    },
    "state_management": {
        "Redux": ("redux toolkit",),
        "Zustand": (),
        "MobX": (),
        "Jotai": (),
        "Recoil": (),
        "Pinia": (),
        "Vuex": (),
    },
    "transform": {
        "dbt": ("dbt core", "dbt cloud"),
    },
    "scheduler": {
        "Airflow": ("apache airflow",),
        "Dagster": (),
        "Prefect": (),
        "Luigi": (),
    },
    "infrastructure": {
        "Terraform": (),
        "Pulumi": (),
        "CloudFormation": (),
        "OpenTofu": (),
    },
    "ui": {
        "Jetpack Compose": ("compose",),
        "SwiftUI": (),
        "UIKit": (),
        "XML layouts": ("xml",),
    },
    "framework": {
        "React": ("reactjs", "react.js"),
        "Vue": ("vue.js", "vuejs"),
        "Angular": (),
        "Svelte": (),
        "SvelteKit": (),
        "Next.js": ("nextjs", "next"),
        "Nuxt": ("nuxt.js",),
        "Remix": (),
        "Astro": (),
        "Gatsby": (),
        "Django": (),
        "Flask": (),
        "FastAPI": (),
        "Rails": ("ruby on rails",),
        "Spring": ("spring boot",),
        "Express": ("express.js", "expressjs"),
        "Laravel": (),
        "NestJS": ("nest.js",),
        "Flutter": (),
        "React Native": (),
    },
    "editor": {
        "Vim": (),
        "Neovim": ("nvim",),
        "Emacs": (),
        "VS Code": ("vscode", "visual studio code"),
        "IntelliJ": ("intellij idea",),
        "PyCharm": (),
        "Sublime Text": ("sublime",),
        "Cursor": (),
        "Zed": (),
        "Helix": (),
    },
    "os": {
        "Linux": (),
        "Ubuntu": (),
        "Debian": (),
        "Arch Linux": ("arch",),
        "Fedora": (),
        "macOS": ("mac os", "osx", "os x", "mac"),
        "Windows": (),
    },
    "cloud": {
        "AWS": ("amazon web services",),
        "GCP": ("google cloud", "google cloud platform"),
        "Azure": (),
        "Vercel": (),
        "Netlify": (),
        "Heroku": (),
        "Fly.io": (),
        "Cloudflare": (),
        "DigitalOcean": ("digital ocean",),
    },
    "package_manager": {
        "npm": (),
        "Yarn": (),
        "pnpm": (),
        "pip": (),
        "Poetry": (),
        "uv": (),
        "Conda": ("anaconda",),
    },
    "css": {
        "Tailwind": ("tailwindcss", "tailwind css"),
        "Bootstrap": (),
    },
    "orchestration": {
        "Kubernetes": ("k8s",),
        "Docker Compose": (),
        "Nomad": (),
    },
    "ci": {
        "Jenkins": (),
        "GitHub Actions": ("gh actions",),
        "GitLab CI": ("gitlab ci/cd", "gitlab-ci"),
        "CircleCI": ("circle ci",),
        "Travis CI": ("travis",),
        "Buildkite": (),
        "Drone": ("drone ci",),
        "TeamCity": (),
    },
    "test_runner": {
        "pytest": ("py.test",),
        "unittest": (),
        "Jest": (),
        "Vitest": (),
        "Mocha": (),
    },
    "e2e_testing": {
        "Cypress": (),
        "Playwright": (),
        "Selenium": (),
        "Puppeteer": (),
    },
    "bundler": {
        "Webpack": (),
        "Vite": (),
        "Rollup": (),
        "esbuild": (),
        "Parcel": (),
    },
    "db_access": {
        "GORM": (),
        "sqlc": (),
        "Prisma": (),
        "SQLAlchemy": (),
        "TypeORM": (),
        "Sequelize": (),
        "Hibernate": (),
        "Drizzle": ("drizzle orm",),
    },
    "date_library": {
        "Moment.js": ("moment", "momentjs"),
        "date-fns": (),
        "Day.js": ("dayjs",),
        "Luxon": (),
    },
}

_INDEX: dict[str, Tool] = {}
for _slot, _tools in _TABLE.items():
    for _name, _aliases in _tools.items():
        for _alias in (_name.lower(), *_aliases):
            _INDEX[_alias] = Tool(_name, _slot)
# Words that are tools only when written as names, never in running lower-case text.
_CASE_SENSITIVE = {
    "moment",
    "parcel",
    "go",
    "rust",
    "swift",
    "dart",
    "express",
    "spring",
    "remix",
    "cursor",
    "zed",
    "helix",
    "arch",
    "next",
    "mac",
    "js",
    "ts",
    "py",
    "pg",
    "oracle",
    "windows",
    "linux",
    "julia",
    "scala",
}

# One scan for a tool name inside a longer phrase; longest aliases first.
_FIND_RE = re.compile(
    r"(?<![\w.#+-])("
    + "|".join(re.escape(a) for a in sorted(_INDEX, key=len, reverse=True))
    + r")(?![\w#+]|\.\w)",
    re.IGNORECASE,
)


def lookup(name: str) -> Tool | None:
    """The known tool called ``name`` (any alias, any case), or ``None``."""
    key = " ".join(name.strip().lower().split())
    if key.endswith(".") and key[:-1] in _INDEX:
        key = key[:-1]
    tool = _INDEX.get(key)
    if tool is None:
        return None
    if key in _CASE_SENSITIVE and name.strip()[:1].islower():
        return None  # "go", "rust", "next" in lower case are ordinary words ("let's go with it")
    return tool


def find_tool(text: str) -> Tool | None:
    """The first known tool named inside ``text`` ("TypeScript for the frontend" → TypeScript)."""
    for m in _FIND_RE.finditer(text):
        tool = lookup(m.group(1))
        if tool is not None:
            return tool
    return None


def slot_of(name: str) -> str:
    """The slot of a tool name: ``language``, ``database``, ... or the generic ``tool``."""
    tool = lookup(name) or find_tool(name)
    return tool.slot if tool else "tool"
