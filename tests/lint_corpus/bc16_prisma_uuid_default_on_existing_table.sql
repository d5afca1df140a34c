-- expect: unsafe add-column-volatile-default
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: "Adding a column with a volatile DEFAULT ... will require the entire table and its indexes to be rewritten"); gen_random_uuid() is volatile (pg_proc.provolatile = 'v')
-- verified: PG15: relfilenode of "Post" changed and "Post_pkey" relfilenode changed; every row got a distinct publicId; the CREATE UNIQUE INDEX that follows is a second finding
-- given: CREATE TABLE "Post" ("id" SERIAL NOT NULL, "title" TEXT NOT NULL, "published" BOOLEAN NOT NULL DEFAULT false, CONSTRAINT "Post_pkey" PRIMARY KEY ("id"));
-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "publicId" TEXT NOT NULL DEFAULT gen_random_uuid()::text;

-- CreateIndex
CREATE UNIQUE INDEX "Post_publicId_key" ON "Post"("publicId");
