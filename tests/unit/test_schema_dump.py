"""Issue 22 item 5: the roles a plain pg_dump names, read with pglast; psql's meta-commands
and COPY data (the journal's rows appended to the dump) are psql's, not SQL."""

from __future__ import annotations

from safemigrate.source.schema_dump import referenced_roles, sql_of_dump

DUMP = """--
-- PostgreSQL database dump
--
\\restrict 7NZ5lgMr2reqCfYs1gtOAfhTUlZnffjMkQRfpA8K6z2KutofaD0bzHKlJqt6apc
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);
CREATE SCHEMA billing AUTHORIZATION "Billing Owner";
CREATE TABLE public.users (id bigint NOT NULL, email text);
ALTER TABLE public.users OWNER TO app;
ALTER DEFAULT PRIVILEGES FOR ROLE app IN SCHEMA public GRANT SELECT ON TABLES TO reporting;
CREATE POLICY own ON public.users TO app_user USING (true);
GRANT SELECT ON TABLE public.users TO readonly;
GRANT SELECT ON TABLE public.users TO PUBLIC;
ALTER TABLE public.users OWNER TO CURRENT_USER;
COPY public.safemigrate_history (version, name, step) FROM stdin;
1\tusers\t0
2\tALTER TABLE x OWNER TO not_a_role; 'quote\t0
\\.
\\unrestrict 7NZ5lgMr2reqCfYs1gtOAfhTUlZnffjMkQRfpA8K6z2KutofaD0bzHKlJqt6apc
"""


def test_the_roles_a_dump_names_are_read_from_its_sql() -> None:
    assert referenced_roles(DUMP) == [
        "Billing Owner",
        "app",
        "app_user",
        "readonly",
        "reporting",
    ]


def test_meta_commands_and_copy_data_are_left_out_line_numbers_kept() -> None:
    text = sql_of_dump(DUMP)
    assert len(text.split("\n")) == len(DUMP.split("\n"))
    assert "restrict" not in text and "not_a_role" not in text and "\\." not in text
    assert "COPY public.safemigrate_history" in text


def test_a_dump_that_does_not_parse_names_no_role() -> None:
    assert referenced_roles("CREATE TABLE (;\nALTER TABLE t OWNER TO app;\n") == []
