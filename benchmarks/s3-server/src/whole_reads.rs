//! s3s-fs with each GET's body read in one blocking call (see main.rs) and `If-Match`
//! honoured (412 where it names another ETag, as S3 answers); every other request it handles
//! itself.

use std::path::{Path, PathBuf};

use s3s::dto::{
    AbortMultipartUploadInput, AbortMultipartUploadOutput, CompleteMultipartUploadInput,
    CompleteMultipartUploadOutput, CopyObjectInput, CopyObjectOutput, CreateBucketInput,
    CreateBucketOutput, CreateMultipartUploadInput, CreateMultipartUploadOutput, DeleteObjectInput,
    DeleteObjectOutput, DeleteObjectsInput, DeleteObjectsOutput, ETag, ETagCondition,
    GetBucketLocationInput, GetBucketLocationOutput, GetObjectInput, GetObjectOutput,
    HeadBucketInput, HeadBucketOutput, HeadObjectInput, HeadObjectOutput, ListBucketsInput,
    ListBucketsOutput, ListObjectsInput, ListObjectsOutput, ListObjectsV2Input,
    ListObjectsV2Output, PutObjectInput, PutObjectOutput, StreamingBlob, UploadPartInput,
    UploadPartOutput,
};
use s3s::{s3_error, Body, S3Request, S3Response, S3Result, S3};
use s3s_fs::FileSystem;

use crate::files::read_part;

/// s3s-fs's file system, but for the bodies of GETs.
pub struct WholeReads {
    files: FileSystem,
    root: PathBuf,
}

impl WholeReads {
    pub fn new(files: FileSystem, root: &str) -> std::io::Result<Self> {
        let root = Path::new(root).canonicalize()?;
        Ok(Self { files, root })
    }
}

/// The first byte of a `Content-Range: bytes FIRST-LAST/SIZE` value.
fn range_start(content_range: &str) -> Option<u64> {
    content_range
        .strip_prefix("bytes ")?
        .split('-')
        .next()?
        .parse()
        .ok()
}

#[async_trait::async_trait]
impl S3 for WholeReads {
    async fn get_object(
        &self,
        req: S3Request<GetObjectInput>,
    ) -> S3Result<S3Response<GetObjectOutput>> {
        // The path as s3s-fs resolves it: its checks (the key inside the bucket) ran in its own
        // get_object, which has answered by now.
        let path = self.root.join(&req.input.bucket).join(&req.input.key);
        let wanted = req.input.if_match.clone();
        // s3s-fs answers (headers, range checks, errors); its body is dropped unread.
        let mut response = self.files.get_object(req).await?;
        let output = &mut response.output;
        // If-Match, which S3 honours and s3s-fs does not.
        if let Some(ETagCondition::ETag(wanted)) = wanted {
            let current = output.e_tag.as_ref().map(ETag::value);
            if current != Some(wanted.value()) {
                return Err(s3_error!(PreconditionFailed));
            }
        }
        let length = usize::try_from(output.content_length.unwrap_or(0))
            .map_err(|_| s3_error!(InternalError, "a negative length"))?;
        let start = output
            .content_range
            .as_deref()
            .and_then(range_start)
            .unwrap_or(0);
        let bytes = tokio::task::spawn_blocking(move || read_part(&path, start, length))
            .await
            .map_err(|error| s3_error!(InternalError, "{error}"))?
            .map_err(|error| s3_error!(InternalError, "{error}"))?;
        output.body = Some(StreamingBlob::from(Body::from(bytes::Bytes::from(bytes))));
        Ok(response)
    }

    async fn abort_multipart_upload(
        &self,
        req: S3Request<AbortMultipartUploadInput>,
    ) -> S3Result<S3Response<AbortMultipartUploadOutput>> {
        self.files.abort_multipart_upload(req).await
    }

    async fn complete_multipart_upload(
        &self,
        req: S3Request<CompleteMultipartUploadInput>,
    ) -> S3Result<S3Response<CompleteMultipartUploadOutput>> {
        self.files.complete_multipart_upload(req).await
    }

    async fn copy_object(
        &self,
        req: S3Request<CopyObjectInput>,
    ) -> S3Result<S3Response<CopyObjectOutput>> {
        self.files.copy_object(req).await
    }

    async fn create_bucket(
        &self,
        req: S3Request<CreateBucketInput>,
    ) -> S3Result<S3Response<CreateBucketOutput>> {
        self.files.create_bucket(req).await
    }

    async fn create_multipart_upload(
        &self,
        req: S3Request<CreateMultipartUploadInput>,
    ) -> S3Result<S3Response<CreateMultipartUploadOutput>> {
        self.files.create_multipart_upload(req).await
    }

    async fn delete_object(
        &self,
        req: S3Request<DeleteObjectInput>,
    ) -> S3Result<S3Response<DeleteObjectOutput>> {
        self.files.delete_object(req).await
    }

    async fn delete_objects(
        &self,
        req: S3Request<DeleteObjectsInput>,
    ) -> S3Result<S3Response<DeleteObjectsOutput>> {
        self.files.delete_objects(req).await
    }

    async fn get_bucket_location(
        &self,
        req: S3Request<GetBucketLocationInput>,
    ) -> S3Result<S3Response<GetBucketLocationOutput>> {
        self.files.get_bucket_location(req).await
    }

    async fn head_bucket(
        &self,
        req: S3Request<HeadBucketInput>,
    ) -> S3Result<S3Response<HeadBucketOutput>> {
        self.files.head_bucket(req).await
    }

    async fn head_object(
        &self,
        req: S3Request<HeadObjectInput>,
    ) -> S3Result<S3Response<HeadObjectOutput>> {
        self.files.head_object(req).await
    }

    async fn list_buckets(
        &self,
        req: S3Request<ListBucketsInput>,
    ) -> S3Result<S3Response<ListBucketsOutput>> {
        self.files.list_buckets(req).await
    }

    async fn list_objects(
        &self,
        req: S3Request<ListObjectsInput>,
    ) -> S3Result<S3Response<ListObjectsOutput>> {
        self.files.list_objects(req).await
    }

    async fn list_objects_v2(
        &self,
        req: S3Request<ListObjectsV2Input>,
    ) -> S3Result<S3Response<ListObjectsV2Output>> {
        self.files.list_objects_v2(req).await
    }

    async fn put_object(
        &self,
        req: S3Request<PutObjectInput>,
    ) -> S3Result<S3Response<PutObjectOutput>> {
        self.files.put_object(req).await
    }

    async fn upload_part(
        &self,
        req: S3Request<UploadPartInput>,
    ) -> S3Result<S3Response<UploadPartOutput>> {
        self.files.upload_part(req).await
    }
}
