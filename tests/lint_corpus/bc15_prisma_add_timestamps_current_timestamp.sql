-- expect: safe
-- doc: https://www.postgresql.org/docs/current/sql-altertable.html (Notes: a non-volatile DEFAULT in ADD COLUMN is evaluated once and stored in the catalog, no rewrite); CURRENT_TIMESTAMP is stable (now()), not volatile
-- verified: PG15: relfilenode of "Post" unchanged; all existing rows read the same createdAt value
-- given: CREATE TABLE "Post" ("id" SERIAL NOT NULL, "title" TEXT NOT NULL, "published" BOOLEAN NOT NULL DEFAULT false, CONSTRAINT "Post_pkey" PRIMARY KEY ("id"));
-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "viewCount" INTEGER NOT NULL DEFAULT 0;
