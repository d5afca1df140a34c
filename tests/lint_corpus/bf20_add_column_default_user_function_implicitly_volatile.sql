-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-createfunction.html ("If none of these appear, VOLATILE is the default assumption"); https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a volatile DEFAULT rewrites the table); tablecmds.c ATExecAddColumn contain_volatile_functions -> AT_REWRITE_DEFAULT_VAL
-- verified: PG15: pg_proc.provolatile of new_account_token() = 'v'; accounts relfilenode and accounts_pkey relfilenode change after the ADD COLUMN (full rewrite); the same function declared IMMUTABLE keeps both relfilenodes
-- given: CREATE TABLE accounts (id bigint PRIMARY KEY, name text NOT NULL, country char(2));
CREATE OR REPLACE FUNCTION new_account_token() RETURNS text
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN 'tok_' || md5(random()::text);
END
$$;

ALTER TABLE accounts ADD COLUMN api_token text NOT NULL DEFAULT new_account_token();
