-- expect: unsafe set-not-null
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (SET NOT NULL scans under ACCESS EXCLUSIVE; other subcommands of the same ALTER are instant)
-- verified: PG15+16: seq_scan +1 on profiles, no rewrite
-- given: CREATE TABLE profiles (id bigint PRIMARY KEY, display_name text, bio text, avatar_url text);
ALTER TABLE profiles
    ADD COLUMN pronouns text,
    ALTER COLUMN bio SET STORAGE EXTERNAL,
    ALTER COLUMN display_name SET DEFAULT 'anonymous',
    ALTER COLUMN display_name SET NOT NULL,
    ALTER COLUMN avatar_url DROP NOT NULL;
